import { adminOperations } from "./tenancy/admin/operations.js";
import { auditOperations } from "./audit/operations.js";
import { accessBundleOperations, agentProxyOperations, agentSessionOperations, proxiedServiceOperations } from "./agent-vault/operations.js";
import { authOperations } from "./tenancy/auth/operations.js";
import {
  alertOperations,
  certificateAuthorityOperations,
  certificateOperations,
  certificateProfileOperations,
  revocationOperations,
  discoveryOperations,
  installationOperations,
} from "./cert-manager/operations.js";
import { dynamicSecretOperations } from "./dynamic-secrets/operations.js";
import { identityOperations } from "./tenancy/identities/operations.js";
import { universalAuthOperations } from "./tenancy/universal-auth/operations.js";
import { kmsOperations } from "./kms/operations.js";
import { membershipOperations } from "./tenancy/memberships/operations.js";
import { organizationOperations } from "./tenancy/organizations/operations.js";
import { privilegeV1Operations } from "./tenancy/privileges/operations-v1.js";
import { privilegeV2Operations } from "./tenancy/privileges/operations-v2.js";
import { projectOperations } from "./tenancy/projects/operations.js";
import { customRoleOperations, roleOperations } from "./tenancy/roles/operations.js";
import { systemOperations } from "./system/operations.js";
import { environmentOperations } from "./secret-manager/environments/operations.js";
import { eventOperations } from "./events/operations.js";
import { folderOperations } from "./secret-manager/folders/operations.js";
import { secretImportOperations } from "./secret-manager/imports/operations.js";
import { secretOperations } from "./secret-manager/secrets/operations.js";
import { tagOperations } from "./secret-manager/tags/operations.js";

/**
 * Every area's operations, by area and name: `createStrongroom` exposes them as
 * `strongroom.<area>.<name>`, and adapters reference them directly (a route row names
 * `operations.secrets.get`, so a misspelt operation fails to compile).
 */
export const operations = {
  system: systemOperations,
  admin: adminOperations,
  auth: authOperations,
  organizations: organizationOperations,
  identities: identityOperations,
  universalAuth: universalAuthOperations,
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
  certificateRevocation: revocationOperations,
  discovery: discoveryOperations,
  installations: installationOperations,
  alerts: alertOperations,
  kms: kmsOperations,
  dynamicSecrets: dynamicSecretOperations,
  audit: auditOperations,
};

export type Operations = typeof operations;
