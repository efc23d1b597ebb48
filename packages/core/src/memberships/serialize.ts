import type { Row } from "../storage/schema.js";

export const toMembershipRole = (r: Row<"membershipRoles">) => ({
  id: r.id,
  role: r.role,
  projectMembershipId: r.membershipId,
  customRoleId: r.customRoleId,
  isTemporary: r.isTemporary,
  temporaryMode: r.temporaryMode,
  temporaryRange: r.temporaryRange,
  temporaryAccessStartTime: r.temporaryAccessStartTime,
  temporaryAccessEndTime: r.temporaryAccessEndTime,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
