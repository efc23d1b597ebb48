import { z } from "zod";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { PermissionRule } from "../../permissions/index.js";
import { privilegePermissionSchema, privilegeSlugSchema, privilegeV1Schema, temporaryInput, v1PermissionsInputSchema } from "./schemas.js";
import { privilegeScope, type PrivilegeIntent } from "./scope.js";
import { changePrivilege, grantPrivilege, listPrivileges, privilegeBySlug, revokePrivilege } from "./service.js";
import { toPrivilegeV1 } from "./view.js";

/** v1 addresses a privilege by identity id + project slug (+ privilege slug). */
const address = {
  identityId: z.string().min(1),
  projectSlug: z.string().min(1),
};

const v1Scope = (intent: PrivilegeIntent) =>
  privilegeScope<{ identityId: string; projectSlug: string }>({
    project: (input) => ({ projectSlug: input.projectSlug }),
    identity: (input) => input.identityId,
    intent,
  });

const grantInput = {
  ...address,
  slug: privilegeSlugSchema.optional(),
  /** Deprecated in favour of privilegePermission. */
  permissions: v1PermissionsInputSchema.optional(),
  privilegePermission: privilegePermissionSchema.optional(),
};

/** `privilegePermission` expands to one rule per action; one of the two forms is required. */
function grantedRules(input: { permissions?: PermissionRule[]; privilegePermission?: z.output<typeof privilegePermissionSchema> }): PermissionRule[] {
  if (input.privilegePermission) {
    const { actions, subject, conditions } = input.privilegePermission;
    return actions.map((action) => ({ subject, action, conditions }));
  }
  if (input.permissions) return input.permissions;
  throw new BadRequestError("Pass privilegePermission (or the deprecated permissions)");
}

const one = z.object({ privilege: privilegeV1Schema });

export const privilegeV1Operations = {
  list: defineOperation({
    name: "list",
    summary: "List an identity's additional privileges in a project (v1)",
    audience: "principal",
    input: z.object(address),
    output: z.object({ privileges: z.array(privilegeV1Schema) }),
    use: v1Scope("read"),
    async run(ctx, _actor, _input, target) {
      return { privileges: (await listPrivileges(ctx, target)).map(toPrivilegeV1) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get one additional privilege by slug (v1)",
    audience: "principal",
    input: z.object({ ...address, privilegeSlug: z.string().min(1) }),
    output: one,
    use: v1Scope("read"),
    async run(ctx, _actor, input, target) {
      return { privilege: toPrivilegeV1(await privilegeBySlug(ctx, target, input.privilegeSlug)) };
    },
  }),

  createPermanent: defineOperation({
    name: "createPermanent",
    summary: "Grant an identity a permanent additional privilege (v1)",
    audience: "principal",
    input: z.object(grantInput),
    output: one,
    use: v1Scope("grant"),
    async run(ctx, _actor, input, target) {
      const row = await grantPrivilege(ctx, target, { slug: input.slug, permissions: grantedRules(input), isTemporary: false });
      return { privilege: toPrivilegeV1(row) };
    },
  }),

  createTemporary: defineOperation({
    name: "createTemporary",
    summary: "Grant an identity a temporary additional privilege (v1)",
    audience: "principal",
    input: z.object({ ...grantInput, ...temporaryInput }),
    output: one,
    use: v1Scope("grant"),
    async run(ctx, _actor, input, target) {
      const row = await grantPrivilege(ctx, target, {
        slug: input.slug,
        permissions: grantedRules(input),
        isTemporary: true,
        temporaryMode: input.temporaryMode,
        temporaryRange: input.temporaryRange,
        temporaryAccessStartTime: input.temporaryAccessStartTime,
      });
      return { privilege: toPrivilegeV1(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update an additional privilege (v1)",
    audience: "principal",
    input: z.object({
      ...address,
      privilegeSlug: z.string().min(1),
      privilegeDetails: z.object({
        slug: privilegeSlugSchema.optional(),
        permissions: v1PermissionsInputSchema.optional(),
        isTemporary: z.boolean().optional(),
        temporaryMode: temporaryInput.temporaryMode.optional(),
        temporaryRange: temporaryInput.temporaryRange.optional(),
        temporaryAccessStartTime: temporaryInput.temporaryAccessStartTime.optional(),
      }),
    }),
    output: one,
    use: v1Scope("grant"),
    async run(ctx, _actor, input, target) {
      const row = await privilegeBySlug(ctx, target, input.privilegeSlug);
      const { slug, permissions, isTemporary, ...window } = input.privilegeDetails;
      const updated = await changePrivilege(ctx, target, row.id, {
        slug,
        permissions,
        temporary: isTemporary === undefined ? undefined : { isTemporary, ...window },
      });
      return { privilege: toPrivilegeV1(updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an additional privilege (v1)",
    audience: "principal",
    input: z.object({ ...address, privilegeSlug: z.string().min(1) }),
    output: one,
    use: v1Scope("grant"),
    async run(ctx, _actor, input, target) {
      const row = await privilegeBySlug(ctx, target, input.privilegeSlug);
      return { privilege: toPrivilegeV1(await revokePrivilege(ctx, row)) };
    },
  }),
};
