import type { Route } from "./route.js";

/** Custom project roles and identity additional privileges, both generations (DESIGN.md §4). */
export const permissionRoutes: readonly Route[] = [
  { method: "POST", path: "/api/v1/projects/{projectId}/roles", operation: "customRoles.create" },
  { method: "GET", path: "/api/v1/projects/{projectId}/roles", operation: "customRoles.list" },
  { method: "GET", path: "/api/v1/projects/{projectId}/roles/{roleId}", operation: "customRoles.get" },
  { method: "PATCH", path: "/api/v1/projects/{projectId}/roles/{roleId}", operation: "customRoles.update" },
  { method: "DELETE", path: "/api/v1/projects/{projectId}/roles/{roleId}", operation: "customRoles.delete" },

  { method: "GET", path: "/api/v1/additional-privilege/identity", operation: "privilegesV1.list", query: ["identityId", "projectSlug"] },
  {
    method: "GET",
    path: "/api/v1/additional-privilege/identity/{privilegeSlug}",
    operation: "privilegesV1.get",
    query: ["identityId", "projectSlug"],
  },
  { method: "POST", path: "/api/v1/additional-privilege/identity/permanent", operation: "privilegesV1.createPermanent" },
  { method: "POST", path: "/api/v1/additional-privilege/identity/temporary", operation: "privilegesV1.createTemporary" },
  { method: "PATCH", path: "/api/v1/additional-privilege/identity", operation: "privilegesV1.update" },
  { method: "DELETE", path: "/api/v1/additional-privilege/identity", operation: "privilegesV1.delete" },

  { method: "GET", path: "/api/v2/identity-project-additional-privilege", operation: "privilegesV2.list", query: ["identityId", "projectId"] },
  {
    method: "GET",
    path: "/api/v2/identity-project-additional-privilege/slug/{privilegeSlug}",
    operation: "privilegesV2.getBySlug",
    query: ["identityId", "projectSlug"],
  },
  { method: "GET", path: "/api/v2/identity-project-additional-privilege/{id}", operation: "privilegesV2.get" },
  { method: "POST", path: "/api/v2/identity-project-additional-privilege", operation: "privilegesV2.create" },
  { method: "PATCH", path: "/api/v2/identity-project-additional-privilege/{id}", operation: "privilegesV2.update" },
  { method: "DELETE", path: "/api/v2/identity-project-additional-privilege/{id}", operation: "privilegesV2.delete" },
];
