import type { Route } from "./route.js";

/** Instance set-up, sign-in, organizations, identities, projects and memberships (DESIGN.md §3). */
export const foundationRoutes: readonly Route[] = [
  { method: "GET", path: "/api/status", operation: "system.status" },
  { method: "POST", path: "/api/v1/admin/bootstrap", operation: "admin.bootstrap" },
  { method: "POST", path: "/api/v1/auth/login", operation: "auth.login" },
  { method: "POST", path: "/api/v1/auth/token/revoke", operation: "auth.revokeToken" },
  {
    method: "POST",
    path: "/api/v1/auth/universal-auth/login",
    operation: "auth.universalAuthLogin",
    trailingSlash: true,
  },
  { method: "POST", path: "/api/v2/organizations", operation: "organizations.create" },
  { method: "POST", path: "/api/v1/organizations/{orgId}/users", operation: "organizations.createUser" },
  { method: "POST", path: "/api/v1/identities", operation: "identities.create" },
  {
    method: "POST",
    path: "/api/v1/auth/universal-auth/identities/{identityId}",
    operation: "identities.attachUniversalAuth",
  },
  {
    method: "POST",
    path: "/api/v1/auth/universal-auth/identities/{identityId}/client-secrets",
    operation: "identities.createClientSecret",
  },
  { method: "POST", path: "/api/v1/projects", operation: "projects.create" },
  { method: "GET", path: "/api/v2/workspace/{projectId}/roles", operation: "roles.list" },
  { method: "POST", path: "/api/v2/workspace/{projectId}/memberships", operation: "memberships.addUsers" },
  {
    method: "POST",
    path: "/api/v2/workspace/{projectId}/identity-memberships/{identityId}",
    operation: "memberships.addIdentity",
  },
  {
    method: "POST",
    path: "/api/v1/workspace/{workspaceId}/memberships/details",
    operation: "memberships.details",
  },
  {
    method: "PATCH",
    path: "/api/v1/projects/{projectId}/memberships/{membershipId}",
    operation: "memberships.updateRoles",
  },
];
