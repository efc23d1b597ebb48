import { z } from "zod";
import { permissionConditionsSchema, permissionRuleSchema } from "../../permissions/index.js";
import { isoDateTime, slugPattern, temporaryGrantFields, uuid } from "../../kernel/schemas.js";

export const privilegeSlugSchema = z.string().min(1).max(60).regex(slugPattern, "lower-case letters, digits and hyphens");

/** SPEC.md's permission item as v1 shows it: one action per item. */
export const v1PermissionItemSchema = z.object({
  action: z.string(),
  subject: z.string(),
  conditions: z.record(z.string(), z.unknown()),
  inverted: z.boolean(),
});

export const privilegeV1Schema = z.object({
  id: uuid,
  slug: z.string(),
  projectMembershipId: uuid,
  permissions: z.array(v1PermissionItemSchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  ...temporaryGrantFields,
});

export const privilegeV2Schema = z.object({
  id: uuid,
  slug: z.string(),
  permissions: z.array(permissionRuleSchema),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  ...temporaryGrantFields,
});

/** v2 list items leave out `permissions` (SPEC.md). */
export const privilegeV2ListItemSchema = privilegeV2Schema.omit({ permissions: true });

/** v1's compact way to grant secret access: one rule per action. */
export const privilegePermissionSchema = z.object({
  actions: z.array(z.string().min(1).max(64)).min(1).max(20),
  subject: z.literal("secrets"),
  conditions: permissionConditionsSchema.pick({ environment: true, secretPath: true }).extend({ environment: z.string().min(1).max(64) }),
});

/** v1's deprecated `permissions`: rules with one action each. */
export const v1PermissionsInputSchema = z.array(
  permissionRuleSchema.extend({ action: z.string().min(1).max(64) }),
).min(1).max(100);

export const temporaryInput = {
  temporaryMode: z.enum(["relative"]),
  temporaryRange: z.string().min(1).max(32),
  temporaryAccessStartTime: z.iso.datetime({ offset: true }),
};

/** v2's `type`: permanent, or temporary with a relative range. */
export const privilegeTypeSchema = z.discriminatedUnion("isTemporary", [
  z.object({ isTemporary: z.literal(false) }),
  z.object({ isTemporary: z.literal(true), ...temporaryInput }),
]);
