import { defineRepository } from "../../kernel/context.js";
import { tablesOf, type Where } from "../../storage/table.js";
import { certificateRepository } from "../certificates/repository.js";
import { findPage, type Page, type PageRequest } from "../pages.js";
import { certificateProfiles, type ProfileRow } from "../tables.js";

export const profileRepository = defineRepository("certificate-profiles", (ctx) => {
  const t = tablesOf(ctx.storage, { certificateProfiles });
  return {
    get: (id: string): Promise<ProfileRow | undefined> => t.certificateProfiles.get(id),
    bySlug: (projectId: string, slug: string): Promise<ProfileRow | undefined> => t.certificateProfiles.findOne({ projectId, slug }),
    /** By slug; `search` matches slug or description, case-insensitively. */
    page(projectId: string, search: string | undefined, page: PageRequest): Promise<Page<ProfileRow>> {
      const where: Where<ProfileRow> = {
        projectId,
        ...(search ? { $or: [{ slug: { contains: search } }, { description: { contains: search } }] } : {}),
      };
      return findPage(t.certificateProfiles, where, [["slug", "asc"]], page);
    },
    /** The slugs of these profiles by id; ids of deleted profiles are left out. */
    async slugs(ids: readonly string[]): Promise<Map<string, string>> {
      const rows = ids.length ? await t.certificateProfiles.find({ id: { in: [...ids] } }) : [];
      return new Map(rows.map((row) => [row.id, row.slug]));
    },
    insert: (row: ProfileRow): Promise<void> => t.certificateProfiles.insert(row),
    update: (id: string, patch: Partial<ProfileRow>): Promise<number> => t.certificateProfiles.update({ id }, patch),
    /** Deletes the profile; the certificates issued from it are kept, no longer linked to a profile. */
    remove: (profile: Pick<ProfileRow, "id" | "projectId">): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        await tx.repo(certificateRepository).unlinkProfile(profile.projectId, profile.id);
        await tablesOf(tx.storage, { certificateProfiles }).certificateProfiles.delete({ id: profile.id });
      }),
  };
});
