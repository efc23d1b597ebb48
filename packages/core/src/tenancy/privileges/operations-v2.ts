import { z } from "zod";
import { defineOperation } from "../../kernel/operation.js";
import { permissionRulesSchema } from "../../permissions/index.js";
import { privilegeSlugSchema, privilegeTypeSchema, privilegeV2ListItemSchema, privilegeV2Schema } from "./schemas.js";
import { toPrivilegeV2, toPrivilegeV2ListItem } from "./view.js";
import { createPrivilege, deletePrivilege, listPrivileges, privilegeById, privilegeBySlug, privilegeTarget, updatePrivilege } from "./service.js";

const one = z.object({ privilege: privilegeV2Schema });
const byId = z.object({ id: z.string().min(1) });

export const privilegeV2Operations = {
  list: defineOperation({
    name: "list",
    summary: "List an identity's additional privileges in a project (v2; items without permissions)",
    audience: "principal",
    input: z.object({ identityId: z.string().min(1), projectId: z.string().min(1) }),
    output: z.object({ privileges: z.array(privilegeV2ListItemSchema) }),
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectId: input.projectId }, input.identityId, "read");
      return { privileges: (await listPrivileges(ctx, target)).map(toPrivilegeV2ListItem) };
    },
  }),

  getBySlug: defineOperation({
    name: "getBySlug",
    summary: "Get an additional privilege by slug (v2)",
    audience: "principal",
    input: z.object({ privilegeSlug: z.string().min(1), identityId: z.string().min(1), projectSlug: z.string().min(1) }),
    output: one,
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "read");
      return { privilege: toPrivilegeV2(await privilegeBySlug(ctx, target, input.privilegeSlug)) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an additional privilege by id (v2)",
    audience: "principal",
    input: byId,
    output: one,
    async run(ctx, actor, input) {
      const { row } = await privilegeById(ctx, actor, input.id, "read");
      return { privilege: toPrivilegeV2(row) };
    },
  }),

  create: defineOperation({
    name: "create",
    summary: "Grant an identity an additional privilege (v2)",
    audience: "principal",
    input: z.object({
      identityId: z.string().min(1),
      projectId: z.string().min(1),
      slug: privilegeSlugSchema.optional(),
      permissions: permissionRulesSchema.min(1),
      type: privilegeTypeSchema.default({ isTemporary: false }),
    }),
    output: one,
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectId: input.projectId }, input.identityId, "grant");
      const row = await createPrivilege(ctx, target, { slug: input.slug, permissions: input.permissions, ...input.type });
      return { privilege: toPrivilegeV2(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update an additional privilege (v2)",
    audience: "principal",
    input: byId.extend({
      slug: privilegeSlugSchema.optional(),
      permissions: permissionRulesSchema.min(1).optional(),
      type: privilegeTypeSchema.optional(),
    }),
    output: one,
    async run(ctx, actor, input) {
      const { target, row } = await privilegeById(ctx, actor, input.id, "grant");
      const updated = await updatePrivilege(ctx, target, row, { slug: input.slug, permissions: input.permissions, temporary: input.type });
      return { privilege: toPrivilegeV2(updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an additional privilege (v2)",
    audience: "principal",
    input: byId,
    output: one,
    async run(ctx, actor, input) {
      const { row } = await privilegeById(ctx, actor, input.id, "grant");
      return { privilege: toPrivilegeV2(await deletePrivilege(ctx, row)) };
    },
  }),
};
