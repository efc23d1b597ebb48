import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/**
 * The whole lifecycle of projects, identities and members on Infisical's paths: the current
 * `/api/v1/projects/...` ones and the older `/api/v1/workspace/...`, `/api/v2/workspace/...` ones
 * that Infisical's SDKs and MCP server still call (answered under the key they expect,
 * `workspace(s)` or `project(s)`).
 */
const projects = operations.projects;
const identities = operations.identities;
const universalAuth = operations.universalAuth;
const ua = "/api/v1/auth/universal-auth/identities/{identityId}";
const memberships = operations.memberships;
const identityMemberships = "/api/v2/workspace/{projectId}/identity-memberships";
const orgMembers = "/api/v2/organizations/{organizationId}/memberships";

export const tenancyRoutes: readonly Route[] = [
  post("/api/v2/workspace", projects.create),
  get("/api/v1/projects", projects.list),
  get("/api/v1/workspace", projects.listWorkspaces),
  get("/api/v1/projects/{projectId}", projects.get),
  get("/api/v1/workspace/{projectId}", projects.getWorkspace),
  patch("/api/v1/projects/{projectId}", projects.update),
  patch("/api/v1/workspace/{projectId}", projects.updateWorkspace),
  del("/api/v1/projects/{projectId}", projects.delete),
  del("/api/v1/workspace/{projectId}", projects.deleteWorkspace),

  get("/api/v1/identities", identities.list),
  get("/api/v1/identities/{identityId}", identities.get),
  patch("/api/v1/identities/{identityId}", identities.update),
  del("/api/v1/identities/{identityId}", identities.delete),
  get(ua, universalAuth.get),
  patch(ua, universalAuth.update),
  del(ua, universalAuth.revoke),
  get(`${ua}/client-secrets`, universalAuth.listClientSecrets),
  get(`${ua}/client-secrets/{clientSecretId}`, universalAuth.getClientSecret),
  post(`${ua}/client-secrets/{clientSecretId}/revoke`, universalAuth.revokeClientSecret),
  post("/api/v1/auth/token/renew", operations.auth.renewToken),

  get(orgMembers, operations.organizations.listMembers),
  patch(`${orgMembers}/{membershipId}`, operations.organizations.updateMember),
  del(`${orgMembers}/{membershipId}`, operations.organizations.removeMember),

  post("/api/v1/projects/{projectId}/memberships", memberships.addUsers),
  get("/api/v1/projects/{projectId}/memberships", memberships.listUsers),
  get("/api/v1/workspace/{projectId}/memberships", memberships.listUsers),
  get("/api/v1/projects/{projectId}/memberships/{membershipId}", memberships.getUser),
  get("/api/v1/workspace/{projectId}/memberships/{membershipId}", memberships.getUser),
  del("/api/v1/projects/{projectId}/memberships/{membershipId}", memberships.removeUser),
  del("/api/v1/workspace/{projectId}/memberships/{membershipId}", memberships.removeUser),
  del("/api/v1/projects/{projectId}/memberships", memberships.removeUsers),
  del("/api/v2/workspace/{projectId}/memberships", memberships.removeUsers),

  get(identityMemberships, memberships.listIdentities),
  get(`${identityMemberships}/{identityId}`, memberships.getIdentity),
  patch(`${identityMemberships}/{identityId}`, memberships.updateIdentity),
  del(`${identityMemberships}/{identityId}`, memberships.removeIdentity),
];
