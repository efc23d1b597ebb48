import { defineRepository } from "../../kernel/context.js";
import { tablesOf, type TablesOf } from "../../storage/table.js";
import { secretTables, type SecretRow, type TagRow } from "../tables.js";

const carriersOf = async (t: TablesOf<typeof secretTables>, tag: TagRow): Promise<SecretRow[]> =>
  (await t.secrets.find({ projectId: tag.projectId })).filter((s) => s.tagIds.includes(tag.id));

export const tagRepository = defineRepository("secret-manager.tags", (ctx) => {
  const t = tablesOf(ctx.storage, secretTables);
  return {
    /** Every tag of a project by id: one read serves a whole list or batch. */
    async ofProject(projectId: string): Promise<Map<string, TagRow>> {
      const rows = await t.secretTags.find({ projectId });
      return new Map(rows.map((tag) => [tag.id, tag]));
    },
    list: (projectId: string): Promise<TagRow[]> => t.secretTags.find({ projectId }, { orderBy: [["slug", "asc"]] }),
    bySlug: (projectId: string, slug: string): Promise<TagRow | undefined> => t.secretTags.findOne({ projectId, slug }),
    byId: (projectId: string, id: string): Promise<TagRow | undefined> => t.secretTags.findOne({ projectId, id }),
    insert: (tag: TagRow): Promise<void> => t.secretTags.insert(tag),

    /** The secrets carrying a tag. Tag sets are stored on the secret rows, which no index reaches by tag: the project is scanned once. */
    carriersOf: (tag: TagRow): Promise<SecretRow[]> => carriersOf(t, tag),

    /** Deletes a tag and detaches it from every secret that carried it, in one transaction. */
    delete: (tag: TagRow): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        for (const s of await carriersOf(w, tag)) await w.secrets.update({ id: s.id }, { tagIds: s.tagIds.filter((id) => id !== tag.id) });
        await w.secretTags.delete({ id: tag.id });
      }),
  };
});
