import type { OrgRole } from "../../access/org-access.js";
import type { OrgMembershipRow } from "../../access/tables.js";
import type { OrganizationRow, UserRow } from "../tables.js";

export const toOrganization = (o: OrganizationRow) => ({ id: o.id, name: o.name, slug: o.slug, createdAt: o.createdAt });

export const toOrgMembership = (m: OrgMembershipRow, u: UserRow) => ({
  id: m.id,
  orgId: m.orgId,
  userId: m.userId,
  role: m.role as OrgRole,
  status: "accepted" as const,
  isActive: true,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
  user: { id: u.id, email: u.email, username: u.username, firstName: u.firstName, lastName: u.lastName },
});
