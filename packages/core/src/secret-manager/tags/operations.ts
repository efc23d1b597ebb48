import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { memberProjectScope } from "../scope.js";
import { requireBulkChange } from "../secrets/bulk-change.js";
import type { PlacedSecret } from "../secrets/visibility.js";
import type { TagRow } from "../tables.js";
import { tagRepository } from "./repository.js";
import { createTagInput, deleteTagInput, listTagsInput, tagSchema } from "./schemas.js";
import { toTag } from "./view.js";

export const tagOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a tag in a project; slugs are unique per project",
    audience: "principal",
    input: createTagInput,
    output: z.object({ workspaceTag: tagSchema }),
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      access.require("create", "tags");
      return ctx.withTransaction(async (tx) => {
        const tags = tx.repo(tagRepository);
        if (await tags.bySlug(project.id, input.slug)) throw new BadRequestError(`A tag with slug '${input.slug}' already exists`);
        const now = ctx.clock.now().toISOString();
        const tag: TagRow = { id: newId(), projectId: project.id, slug: input.slug, name: input.name ?? input.slug, color: input.color ?? "", createdAt: now, updatedAt: now };
        await tags.insert(tag);
        return { workspaceTag: toTag(tag) };
      });
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's tags",
    audience: "principal",
    input: listTagsInput,
    output: z.object({ workspaceTags: z.array(tagSchema) }),
    use: memberProjectScope,
    async run(ctx, _actor, _input, { access, project }) {
      access.require("read", "tags");
      return { workspaceTags: (await ctx.repo(tagRepository).list(project.id)).map(toTag) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a tag; it is detached from every secret that carried it",
    audience: "principal",
    input: deleteTagInput,
    output: z.object({ workspaceTag: tagSchema }),
    use: memberProjectScope,
    async run(ctx, actor, input, { access, project }) {
      access.require("delete", "tags");
      return ctx.withTransaction(async (tx) => {
        const tags = tx.repo(tagRepository);
        const tag = await tags.byId(project.id, input.tagId);
        if (!tag) throw new NotFoundError("Tag not found");
        // Detaching the tag retags every secret carrying it: each is authorized like a retag.
        const detach = (before: PlacedSecret): PlacedSecret => ({ ...before, secret: { ...before.secret, tagIds: before.secret.tagIds.filter((id) => id !== tag.id) } });
        await requireBulkChange(tx, { access, project }, actorPrincipal(actor)?.id, await tags.carriersOf(tag), await tags.ofProject(project.id), {
          fields: ["secretTags"],
          after: detach,
        });
        await tags.delete(tag);
        return { workspaceTag: toTag(tag) };
      });
    },
  }),
};
