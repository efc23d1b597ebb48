import { adminOperations } from "./admin/operations.js";
import { accessBundleOperations, agentProxyOperations, agentSessionOperations, proxiedServiceOperations } from "./agent-proxies/operations.js";
import { authOperations } from "./auth/operations.js";
import {
  alertOperations,
  certificateAuthorityOperations,
  certificateOperations,
  certificateProfileOperations,
  discoveryOperations,
  installationOperations,
} from "./certificates/operations.js";
import { identityOperations } from "./identities/operations.js";
import { membershipOperations } from "./memberships/operations.js";
import { organizationOperations } from "./organizations/operations.js";
import { privilegeV1Operations } from "./privileges/operations-v1.js";
import { privilegeV2Operations } from "./privileges/operations-v2.js";
import { projectOperations } from "./projects/operations.js";
import { customRoleOperations } from "./roles/custom-roles.js";
import { roleOperations } from "./roles/operations.js";
import { systemOperations } from "./system/operations.js";
import { environmentOperations } from "./environments/operations.js";
import { eventOperations } from "./events/operations.js";
import { folderOperations } from "./folders/operations.js";
import { secretImportOperations } from "./secret-imports/operations.js";
import { secretOperations } from "./secrets/operations.js";
import { tagOperations } from "./tags/operations.js";

/** Every area's operations; `createStrongroom` exposes them as `strongroom.<area>.<operation>`. */
export const areas = {
  system: systemOperations,
  admin: adminOperations,
  auth: authOperations,
  organizations: organizationOperations,
  identities: identityOperations,
  projects: projectOperations,
  roles: roleOperations,
  customRoles: customRoleOperations,
  privilegesV1: privilegeV1Operations,
  privilegesV2: privilegeV2Operations,
  memberships: membershipOperations,
  environments: environmentOperations,
  folders: folderOperations,
  tags: tagOperations,
  secretImports: secretImportOperations,
  secrets: secretOperations,
  agentProxies: agentProxyOperations,
  accessBundles: accessBundleOperations,
  agentSessions: agentSessionOperations,
  proxiedServices: proxiedServiceOperations,
  events: eventOperations,
  certificateAuthorities: certificateAuthorityOperations,
  certificateProfiles: certificateProfileOperations,
  certificates: certificateOperations,
  discovery: discoveryOperations,
  installations: installationOperations,
  alerts: alertOperations,
};

export type Areas = typeof areas;
