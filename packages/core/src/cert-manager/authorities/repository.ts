import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { certificateAuthorities, type CaRow } from "../tables.js";

/** Internal CAs. A CA is written once and never changes, so there are no updates. */
export const authorityRepository = defineRepository("certificate-authorities", (ctx) => {
  const t = tablesOf(ctx.storage, { certificateAuthorities });
  return {
    get: (id: string): Promise<CaRow | undefined> => t.certificateAuthorities.get(id),
    /** The CA `id` when it belongs to the project; a CA of another project is no CA here. */
    async ofProject(projectId: string, id: string): Promise<CaRow | undefined> {
      const ca = await t.certificateAuthorities.get(id);
      return ca?.projectId === projectId ? ca : undefined;
    },
    byName: (projectId: string, name: string): Promise<CaRow | undefined> => t.certificateAuthorities.findOne({ projectId, name }),
    /** Oldest first. */
    list: (projectId: string): Promise<CaRow[]> =>
      t.certificateAuthorities.find({ projectId }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] }),
    insert: (row: CaRow): Promise<void> => t.certificateAuthorities.insert(row),
  };
});
