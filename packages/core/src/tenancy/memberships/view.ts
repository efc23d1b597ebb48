import { temporaryGrantOf } from "../../kernel/schemas.js";
import type { Row } from "../../storage/schema.js";

export const toMembershipRole = (r: Row<"membershipRoles">) => ({
  id: r.id,
  role: r.role,
  projectMembershipId: r.membershipId,
  customRoleId: r.customRoleId,
  ...temporaryGrantOf(r),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
