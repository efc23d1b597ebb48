import { adminOperations } from "./tenancy/admin/operations.js";
import { accessBundleOperations, agentProxyOperations, agentSessionOperations, proxiedServiceOperations } from "./agent-vault/operations.js";
import { authOperations } from "./tenancy/auth/operations.js";
import {
  alertOperations,
  certificateAuthorityOperations,
  certificateOperations,
  certificateProfileOperations,
  discoveryOperations,
  installationOperations,
} from "./cert-manager/operations.js";
import { identityOperations } from "./tenancy/identities/operations.js";
import { membershipOperations } from "./tenancy/memberships/operations.js";
import { organizationOperations } from "./tenancy/organizations/operations.js";
import { privilegeV1Operations } from "./tenancy/privileges/operations-v1.js";
import { privilegeV2Operations } from "./tenancy/privileges/operations-v2.js";
import { projectOperations } from "./tenancy/projects/operations.js";
import { customRoleOperations } from "./tenancy/roles/custom-roles.js";
import { roleOperations } from "./tenancy/roles/operations.js";
import { systemOperations } from "./system/operations.js";
import { environmentOperations } from "./secret-manager/environments/operations.js";
import { eventOperations } from "./events/operations.js";
import { folderOperations } from "./secret-manager/folders/operations.js";
import { secretImportOperations } from "./secret-manager/imports/operations.js";
import { secretOperations } from "./secret-manager/secrets/operations.js";
import { tagOperations } from "./secret-manager/tags/operations.js";
import { leavingAccessAlone as quiet } from "./kernel/operation.js";

/**
 * Every area's operations; `createStrongroom` exposes them as `strongroom.<area>.<operation>`.
 * Operations clear this node's token, access and environment caches unless marked `quiet`: reads,
 * and areas whose writes cannot change who may do what.
 */
export const areas = {
  system: quiet(systemOperations),
  admin: adminOperations,
  auth: authOperations,
  organizations: organizationOperations,
  identities: identityOperations,
  projects: quiet(projectOperations, ["get"]),
  roles: quiet(roleOperations),
  customRoles: quiet(customRoleOperations, ["list", "get"]),
  privilegesV1: quiet(privilegeV1Operations, ["list", "get"]),
  privilegesV2: quiet(privilegeV2Operations, ["list", "get", "getBySlug"]),
  memberships: quiet(membershipOperations, ["details"]),
  environments: environmentOperations,
  folders: quiet(folderOperations),
  tags: quiet(tagOperations),
  secretImports: quiet(secretImportOperations),
  secrets: secretOperations,
  agentProxies: quiet(agentProxyOperations, ["list", "get", "config", "resolve"]),
  accessBundles: quiet(accessBundleOperations, ["list", "get"]),
  agentSessions: agentSessionOperations,
  proxiedServices: quiet(proxiedServiceOperations, ["list", "get"]),
  events: quiet(eventOperations),
  certificateAuthorities: quiet(certificateAuthorityOperations),
  certificateProfiles: quiet(certificateProfileOperations),
  certificates: quiet(certificateOperations),
  discovery: quiet(discoveryOperations),
  installations: quiet(installationOperations),
  alerts: quiet(alertOperations),
};

export type Areas = typeof areas;
