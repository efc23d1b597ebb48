import type { CustomRoleRow, ProjectRow } from "../../access/tables.js";
import type { BuiltInProjectRole, PermissionRule } from "../../permissions/index.js";

export const toCustomRole = (r: CustomRoleRow) => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  projectId: r.projectId,
  description: r.description,
  permissions: r.permissions as PermissionRule[],
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** A custom role in the project's list of roles, without its permissions. */
export const toProjectRole = (r: CustomRoleRow) => {
  const { permissions: _, ...role } = toCustomRole(r);
  return role;
};

/** Built-ins are not stored: they take the project's timestamps. */
export const toBuiltInRole = (role: BuiltInProjectRole, project: ProjectRow) => ({
  id: role.id,
  name: role.name,
  slug: role.slug,
  projectId: project.id,
  description: role.description,
  createdAt: project.createdAt,
  updatedAt: project.createdAt,
});
