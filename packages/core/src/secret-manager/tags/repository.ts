import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { secretTables, type TagRow } from "../tables.js";

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

    /** Deletes a tag and detaches it from every secret that carried it, in one transaction. */
    delete: (tag: TagRow): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        // Tag sets are stored on the secret rows, which no index reaches by tag: scan the project once.
        const carriers = (await w.secrets.find({ projectId: tag.projectId })).filter((s) => s.tagIds.includes(tag.id));
        for (const s of carriers) await w.secrets.update({ id: s.id }, { tagIds: s.tagIds.filter((id) => id !== tag.id) });
        await w.secretTags.delete({ id: tag.id });
      }),
  };
});
