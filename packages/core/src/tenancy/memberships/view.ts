import { temporaryGrantOf } from "../../kernel/schemas.js";
import type { AccessRow } from "../../access/tables.js";

export const toMembershipRole = (r: AccessRow<"membershipRoles">) => ({
  id: r.id,
  role: r.role,
  projectMembershipId: r.membershipId,
  customRoleId: r.customRoleId,
  ...temporaryGrantOf(r),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
