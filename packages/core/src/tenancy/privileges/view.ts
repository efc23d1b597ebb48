import type { PermissionRule } from "../../permissions/index.js";
import { temporaryGrantOf } from "../../kernel/schemas.js";
import type { PrivilegeRow } from "../../access/tables.js";

/** v1 shows one item per action. */
export const toV1Permissions = (rules: PermissionRule[]) =>
  rules.flatMap((rule) =>
    (Array.isArray(rule.action) ? rule.action : [rule.action]).map((action) => ({
      action,
      subject: rule.subject,
      conditions: rule.conditions ?? {},
      inverted: rule.inverted ?? false,
    })),
  );

export const toPrivilegeV1 = (p: PrivilegeRow) => ({
  id: p.id,
  slug: p.slug,
  projectMembershipId: p.projectMembershipId,
  permissions: toV1Permissions(p.permissions as PermissionRule[]),
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  ...temporaryGrantOf(p),
});

export const toPrivilegeV2ListItem = (p: PrivilegeRow) => ({
  id: p.id,
  slug: p.slug,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
  ...temporaryGrantOf(p),
});

export const toPrivilegeV2 = (p: PrivilegeRow) => ({ ...toPrivilegeV2ListItem(p), permissions: p.permissions as PermissionRule[] });
