import { z } from "zod";
import { defineOperation } from "../../kernel/operation.js";
import { permissionRulesSchema } from "../../permissions/index.js";
import { privilegeSlugSchema, privilegeTypeSchema, privilegeV2ListItemSchema, privilegeV2Schema } from "./schemas.js";
import { privilegeRecordScope, privilegeScope } from "./scope.js";
import { changePrivilege, grantPrivilege, listPrivileges, privilegeBySlug, revokePrivilege } from "./service.js";
import { toPrivilegeV2, toPrivilegeV2ListItem } from "./view.js";

const one = z.object({ privilege: privilegeV2Schema });
const byId = z.object({ id: z.string().min(1) });

/** v2 addresses privileges by identity id + project id, one privilege by its id (or slug + project slug). */
const byProjectId = (intent: "read" | "grant") =>
  privilegeScope<{ identityId: string; projectId: string }>({
    project: (input) => ({ projectId: input.projectId }),
    identity: (input) => input.identityId,
    intent,
  });

export const privilegeV2Operations = {
  list: defineOperation({
    name: "list",
    summary: "List an identity's additional privileges in a project (v2; items without permissions)",
    audience: "principal",
    input: z.object({ identityId: z.string().min(1), projectId: z.string().min(1) }),
    output: z.object({ privileges: z.array(privilegeV2ListItemSchema) }),
    use: byProjectId("read"),
    async run(ctx, _actor, _input, target) {
      return { privileges: (await listPrivileges(ctx, target)).map(toPrivilegeV2ListItem) };
    },
  }),

  getBySlug: defineOperation({
    name: "getBySlug",
    summary: "Get an additional privilege by slug (v2)",
    audience: "principal",
    input: z.object({ privilegeSlug: z.string().min(1), identityId: z.string().min(1), projectSlug: z.string().min(1) }),
    output: one,
    use: privilegeScope<{ identityId: string; projectSlug: string }>({
      project: (input) => ({ projectSlug: input.projectSlug }),
      identity: (input) => input.identityId,
      intent: "read",
    }),
    async run(ctx, _actor, input, target) {
      return { privilege: toPrivilegeV2(await privilegeBySlug(ctx, target, input.privilegeSlug)) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an additional privilege by id (v2)",
    audience: "principal",
    input: byId,
    output: one,
    use: privilegeRecordScope("read"),
    async run(_ctx, _actor, _input, { record }) {
      return { privilege: toPrivilegeV2(record) };
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
    use: byProjectId("grant"),
    async run(ctx, _actor, input, target) {
      const row = await grantPrivilege(ctx, target, { slug: input.slug, permissions: input.permissions, ...input.type });
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
    use: privilegeRecordScope("grant"),
    async run(ctx, _actor, input, target) {
      const updated = await changePrivilege(ctx, target, target.record.id, { slug: input.slug, permissions: input.permissions, temporary: input.type });
      return { privilege: toPrivilegeV2(updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an additional privilege (v2)",
    audience: "principal",
    input: byId,
    output: one,
    use: privilegeRecordScope("grant"),
    async run(ctx, _actor, _input, { record }) {
      return { privilege: toPrivilegeV2(await revokePrivilege(ctx, record)) };
    },
  }),
};
