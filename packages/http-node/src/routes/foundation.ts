import { operations } from "@strongroom/core";
import { get, patch, post, type Route } from "./route.js";

/** Instance set-up, sign-in, organizations, identities, projects and memberships (DESIGN.md §3). */
export const foundationRoutes: readonly Route[] = [
  get("/api/status", operations.system.status),
  get("/api/status/ready", operations.system.ready),
  post("/api/v1/admin/bootstrap", operations.admin.bootstrap),
  post("/api/v1/auth/login", operations.auth.login),
  post("/api/v1/auth/token/revoke", operations.auth.revokeToken),
  post("/api/v1/auth/universal-auth/login", operations.auth.universalAuthLogin, { trailingSlash: true }),
  post("/api/v2/organizations", operations.organizations.create),
  post("/api/v1/organizations/{orgId}/users", operations.organizations.createUser),
  post("/api/v1/identities", operations.identities.create),
  post("/api/v1/auth/universal-auth/identities/{identityId}", operations.identities.attachUniversalAuth),
  post("/api/v1/auth/universal-auth/identities/{identityId}/client-secrets", operations.identities.createClientSecret),
  post("/api/v1/projects", operations.projects.create),
  get("/api/v2/workspace/{projectId}/roles", operations.roles.list),
  post("/api/v2/workspace/{projectId}/memberships", operations.memberships.addUsers),
  post("/api/v2/workspace/{projectId}/identity-memberships/{identityId}", operations.memberships.addIdentity),
  post("/api/v1/workspace/{workspaceId}/memberships/details", operations.memberships.details),
  patch("/api/v1/projects/{projectId}/memberships/{membershipId}", operations.memberships.updateRoles),
];
