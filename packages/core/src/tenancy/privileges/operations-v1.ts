import { z } from "zod";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { PermissionRule } from "../../permissions/index.js";
import { privilegePermissionSchema, privilegeSlugSchema, privilegeV1Schema, temporaryInput, v1PermissionsInputSchema } from "./schemas.js";
import { toPrivilegeV1 } from "./view.js";
import { createPrivilege, deletePrivilege, listPrivileges, privilegeBySlug, privilegeTarget, updatePrivilege } from "./service.js";

/** v1 addresses a privilege by identity id + project slug (+ privilege slug). */
const address = {
  identityId: z.string().min(1),
  projectSlug: z.string().min(1),
};

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
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "read");
      return { privileges: (await listPrivileges(ctx, target)).map(toPrivilegeV1) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get one additional privilege by slug (v1)",
    audience: "principal",
    input: z.object({ ...address, privilegeSlug: z.string().min(1) }),
    output: one,
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "read");
      return { privilege: toPrivilegeV1(await privilegeBySlug(ctx, target, input.privilegeSlug)) };
    },
  }),

  createPermanent: defineOperation({
    name: "createPermanent",
    summary: "Grant an identity a permanent additional privilege (v1)",
    audience: "principal",
    input: z.object(grantInput),
    output: one,
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "grant");
      const row = await createPrivilege(ctx, target, { slug: input.slug, permissions: grantedRules(input), isTemporary: false });
      return { privilege: toPrivilegeV1(row) };
    },
  }),

  createTemporary: defineOperation({
    name: "createTemporary",
    summary: "Grant an identity a temporary additional privilege (v1)",
    audience: "principal",
    input: z.object({ ...grantInput, ...temporaryInput }),
    output: one,
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "grant");
      const row = await createPrivilege(ctx, target, {
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
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "grant");
      const row = await privilegeBySlug(ctx, target, input.privilegeSlug);
      const details = input.privilegeDetails;
      const updated = await updatePrivilege(ctx, target, row, {
        slug: details.slug,
        permissions: details.permissions,
        temporary:
          details.isTemporary === undefined
            ? undefined
            : {
                isTemporary: details.isTemporary,
                temporaryMode: details.temporaryMode,
                temporaryRange: details.temporaryRange,
                temporaryAccessStartTime: details.temporaryAccessStartTime,
              },
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
    async run(ctx, actor, input) {
      const target = await privilegeTarget(ctx, actor, { projectSlug: input.projectSlug }, input.identityId, "grant");
      const row = await privilegeBySlug(ctx, target, input.privilegeSlug);
      return { privilege: toPrivilegeV1(await deletePrivilege(ctx, row)) };
    },
  }),
};
