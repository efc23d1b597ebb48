import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { isoDateTime, slugPattern } from "../../kernel/schemas.js";
import { projectScoped } from "../input-fields.js";
import { openProject } from "../secrets/scope.js";
import type { TagRow } from "../secrets/serialize.js";

const tagSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  color: z.string(),
  projectId: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const toTag = (t: TagRow) => ({ id: t.id, slug: t.slug, name: t.name, color: t.color, projectId: t.projectId, createdAt: t.createdAt, updatedAt: t.updatedAt });

export const tagOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a tag in a project; slugs are unique per project",
    audience: "principal",
    input: projectScoped({
      slug: z.string().trim().min(1).max(64).regex(slugPattern, "lower-case letters, digits and hyphens"),
      name: z.string().trim().min(1).max(64).optional(),
      color: z.string().trim().max(32).optional(),
    }),
    output: z.object({ workspaceTag: tagSchema }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      access.require("create", "tags");
      return ctx.storage.transaction(async (tx) => {
        if (await tx.tables.secretTags.findOne({ projectId: project.id, slug: input.slug })) {
          throw new BadRequestError(`A tag with slug '${input.slug}' already exists`);
        }
        const now = ctx.clock.now().toISOString();
        const tag: TagRow = { id: newId(), projectId: project.id, slug: input.slug, name: input.name ?? input.slug, color: input.color ?? "", createdAt: now, updatedAt: now };
        await tx.tables.secretTags.insert(tag);
        return { workspaceTag: toTag(tag) };
      });
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's tags",
    audience: "principal",
    input: projectScoped({}),
    output: z.object({ workspaceTags: z.array(tagSchema) }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      access.require("read", "tags");
      const tags = await ctx.storage.tables.secretTags.find({ projectId: project.id }, { orderBy: [["slug", "asc"]] });
      return { workspaceTags: tags.map(toTag) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a tag; it is detached from every secret that carried it",
    audience: "principal",
    input: projectScoped({ tagId: z.string().min(1).max(255) }),
    output: z.object({ workspaceTag: tagSchema }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      access.require("delete", "tags");
      return ctx.storage.transaction(async (tx) => {
        const tag = await tx.tables.secretTags.findOne({ projectId: project.id, id: input.tagId });
        if (!tag) throw new NotFoundError("Tag not found");
        // Tag sets are stored on the secret rows, which no index reaches by tag: scan the project once.
        const carriers = (await tx.tables.secrets.find({ projectId: project.id })).filter((s) => s.tagIds.includes(tag.id));
        for (const s of carriers) await tx.tables.secrets.update({ id: s.id }, { tagIds: s.tagIds.filter((id) => id !== tag.id) });
        await tx.tables.secretTags.delete({ id: tag.id });
        return { workspaceTag: toTag(tag) };
      });
    },
  }),
};
