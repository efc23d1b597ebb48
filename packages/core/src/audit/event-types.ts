/**
 * The event type every operation is recorded under, by `<area>.<operation>` (the key
 * `strongroom.<area>.<operation>` has). Infisical's names where it has one. `read` entries go
 * through the batched queue; `change` entries are written in the change's own transaction.
 * Every operation must be listed: the route-table test fails for one that is not, so a new route
 * cannot ship unrecorded. `hook` marks an operation whose entry is written at its audit hook
 * (with what only it knows, e.g. how a credential resolve ended); the operation itself records
 * only when it fails before reaching it.
 */
export type AuditKind = "read" | "change";

export interface AuditEventType {
  readonly type: string;
  readonly kind: AuditKind;
  readonly hook?: true;
  /**
   * A change whose transaction may commit and the operation still fail (a failed login records
   * its attempt, then answers 401): its entry is written once it settles, with its true outcome —
   * in a transaction of its own before the answer on success, queued on failure.
   */
  readonly after?: true;
}

/**
 * Operations deliberately not recorded: liveness and readiness probes, and the public DER CRL that
 * relying parties fetch without a token — none carries an actor, reads anything secret or changes
 * anything, and recording them would let anyone fill the instance chain.
 */
export const UNAUDITED_OPERATIONS: ReadonlySet<string> = new Set(["system.status", "system.ready", "certificateRevocation.downloadCrl"]);

const r = (type: string): AuditEventType => ({ type, kind: "read" });
const c = (type: string): AuditEventType => ({ type, kind: "change" });
const settled = (type: string): AuditEventType => ({ type, kind: "change", after: true });

export const AUDIT_EVENT_TYPES: Readonly<Record<string, AuditEventType>> = {
  "admin.bootstrap": c("bootstrap-instance"),
  "auth.revokeToken": settled("revoke-access-token"),
  "auth.login": settled("user-login"),
  "auth.universalAuthLogin": settled("login-identity-universal-auth"),
  "auth.renewToken": settled("renew-access-token"),

  "organizations.create": c("create-organization"),
  "organizations.createUser": c("create-user"),
  "organizations.listMembers": r("get-organization-members"),
  "organizations.updateMember": c("update-organization-member"),
  "organizations.removeMember": c("remove-organization-member"),

  "identities.create": c("create-identity"),
  "identities.attachUniversalAuth": c("add-identity-universal-auth"),
  "identities.createClientSecret": c("create-identity-universal-auth-client-secret"),
  "identities.get": r("get-identity"),
  "identities.list": r("list-identities"),
  "identities.update": c("update-identity"),
  "identities.delete": c("delete-identity"),
  "universalAuth.get": r("get-identity-universal-auth"),
  "universalAuth.update": c("update-identity-universal-auth"),
  "universalAuth.revoke": c("revoke-identity-universal-auth"),
  "universalAuth.listClientSecrets": r("get-identity-universal-auth-client-secret"),
  "universalAuth.getClientSecret": r("get-identity-universal-auth-client-secret-by-id"),
  "universalAuth.revokeClientSecret": c("revoke-identity-universal-auth-client-secret"),

  "projects.create": c("create-project"),
  "projects.list": r("get-projects"),
  "projects.listWorkspaces": r("get-projects"),
  "projects.get": r("get-project"),
  "projects.getWorkspace": r("get-project"),
  "projects.update": c("update-project"),
  "projects.updateWorkspace": c("update-project"),
  "projects.delete": c("delete-project"),
  "projects.deleteWorkspace": c("delete-project"),

  "roles.list": r("get-project-roles"),
  "customRoles.create": c("create-project-role"),
  "customRoles.list": r("get-project-roles"),
  "customRoles.get": r("get-project-role"),
  "customRoles.update": c("update-project-role"),
  "customRoles.delete": c("delete-project-role"),

  "privilegesV1.list": r("get-identity-additional-privileges"),
  "privilegesV1.get": r("get-identity-additional-privilege"),
  "privilegesV1.createPermanent": c("create-identity-additional-privilege"),
  "privilegesV1.createTemporary": c("create-identity-additional-privilege"),
  "privilegesV1.update": c("update-identity-additional-privilege"),
  "privilegesV1.delete": c("delete-identity-additional-privilege"),
  "privilegesV2.list": r("get-identity-additional-privileges"),
  "privilegesV2.getBySlug": r("get-identity-additional-privilege"),
  "privilegesV2.get": r("get-identity-additional-privilege"),
  "privilegesV2.create": c("create-identity-additional-privilege"),
  "privilegesV2.update": c("update-identity-additional-privilege"),
  "privilegesV2.delete": c("delete-identity-additional-privilege"),

  "memberships.addUsers": c("add-workspace-member"),
  "memberships.addIdentity": c("create-identity-project-membership"),
  "memberships.details": r("get-workspace-members"),
  "memberships.updateRoles": c("update-user-workspace-role"),
  "memberships.listUsers": r("get-workspace-members"),
  "memberships.getUser": r("get-workspace-member"),
  "memberships.removeUser": c("remove-workspace-member"),
  "memberships.removeUsers": c("remove-workspace-member"),
  "memberships.listIdentities": r("get-identity-project-memberships"),
  "memberships.getIdentity": r("get-identity-project-membership"),
  "memberships.updateIdentity": c("update-identity-project-membership"),
  "memberships.removeIdentity": c("delete-identity-project-membership"),

  "environments.list": r("get-environments"),
  "environments.get": r("get-environment"),
  "environments.create": c("create-environment"),
  "environments.update": c("update-environment"),
  "environments.delete": c("delete-environment"),
  "folders.create": c("create-folder"),
  "folders.list": r("get-folders"),
  "folders.get": r("get-folder"),
  "folders.update": c("update-folder"),
  "folders.delete": c("delete-folder"),
  "tags.create": c("create-tag"),
  "tags.list": r("get-tags"),
  "tags.delete": c("delete-tag"),
  "secretImports.create": c("create-secret-import"),
  "secretImports.list": r("get-secret-imports"),
  "secretImports.update": c("update-secret-import"),
  "secretImports.delete": c("delete-secret-import"),

  "secrets.list": r("get-secrets"),
  "secrets.get": r("get-secret"),
  "secrets.create": c("create-secret"),
  "secrets.update": c("update-secret"),
  "secrets.delete": c("delete-secret"),
  "secrets.attachTags": c("update-secret"),
  "secrets.detachTags": c("update-secret"),
  "secrets.createMany": c("create-secrets"),
  "secrets.updateMany": c("update-secrets"),
  "secrets.deleteMany": c("delete-secrets"),
  "secrets.listVersions": r("get-secret-versions"),
  "secrets.rollback": c("rollback-secret"),

  "agentProxies.create": c("create-agent-proxy"),
  "agentProxies.list": r("get-agent-proxies"),
  "agentProxies.get": r("get-agent-proxy"),
  "agentProxies.update": c("update-agent-proxy"),
  "agentProxies.delete": c("delete-agent-proxy"),
  "agentProxies.issueEnrollmentToken": c("create-agent-proxy-enrollment-token"),
  "agentProxies.revoke": c("revoke-agent-proxy"),
  "agentProxies.enroll": settled("enroll-agent-proxy"),
  "agentProxies.heartbeat": settled("agent-proxy-heartbeat"),
  "agentProxies.config": r("get-agent-proxy-config"),
  "agentProxies.resolve": { type: "agent-proxy-resolve-credential", kind: "read", hook: true },
  "accessBundles.create": c("create-access-bundle"),
  "accessBundles.list": r("get-access-bundles"),
  "accessBundles.get": r("get-access-bundle"),
  "accessBundles.update": c("update-access-bundle"),
  "accessBundles.delete": c("delete-access-bundle"),
  "agentSessions.create": c("create-agent-session"),
  "agentSessions.revoke": c("revoke-agent-session"),
  "proxiedServices.create": c("create-proxied-service"),
  "proxiedServices.list": r("get-proxied-services"),
  "proxiedServices.get": r("get-proxied-service"),
  "proxiedServices.update": c("update-proxied-service"),
  "proxiedServices.delete": c("delete-proxied-service"),

  "events.subscribe": r("subscribe-project-events"),

  "certificateAuthorities.create": c("create-certificate-authority"),
  "certificateAuthorities.list": r("get-certificate-authorities"),
  "certificateAuthorities.get": r("get-certificate-authority"),
  "certificateProfiles.create": c("create-certificate-profile"),
  "certificateProfiles.list": r("list-certificate-profiles"),
  "certificateProfiles.get": r("get-certificate-profile"),
  "certificateProfiles.getBySlug": r("get-certificate-profile"),
  "certificateProfiles.update": c("update-certificate-profile"),
  "certificateProfiles.delete": c("delete-certificate-profile"),
  "certificates.issue": c("issue-cert"),
  "certificates.renew": c("renew-cert"),
  "certificates.revoke": c("revoke-cert"),
  "certificates.listByProfile": r("list-certificates"),
  "certificates.listByProject": r("list-certificates"),
  "certificates.list": r("list-certificates"),
  "certificates.get": r("get-cert"),
  "certificateRevocation.listCrls": r("get-certificate-authority-crls"),
  "discovery.create": c("create-pki-discovery-job"),
  "discovery.list": r("get-pki-discovery-jobs"),
  "discovery.get": r("get-pki-discovery-job"),
  "discovery.update": c("update-pki-discovery-job"),
  "discovery.delete": c("delete-pki-discovery-job"),
  "discovery.scan": c("run-pki-discovery-scan"),
  "installations.list": r("get-pki-installations"),
  "installations.get": r("get-pki-installation"),
  "alerts.create": c("create-pki-alert"),
  "alerts.list": r("get-pki-alerts"),
  "alerts.get": r("get-pki-alert"),
  "alerts.update": c("update-pki-alert"),
  "alerts.delete": c("delete-pki-alert"),
  "alerts.evaluate": c("evaluate-pki-alert"),

  "kms.createKey": c("create-cmek"),
  "kms.listKeys": r("get-cmeks"),
  "kms.getKey": r("get-cmek"),
  "kms.getKeyByName": r("get-cmek"),
  "kms.updateKey": c("update-cmek"),
  "kms.rotateKey": c("rotate-cmek"),
  "kms.deleteKey": c("delete-cmek"),
  "kms.encrypt": r("cmek-encrypt"),
  "kms.decrypt": r("cmek-decrypt"),
  "kms.sign": r("cmek-sign"),
  "kms.verify": r("cmek-verify"),
  "kms.publicKey": r("cmek-get-public-key"),
  "kms.signingAlgorithms": r("cmek-list-signing-algorithms"),
  "kms.generateMac": r("cmek-generate-mac"),
  "kms.verifyMac": r("cmek-verify-mac"),

  "dynamicSecrets.create": c("create-dynamic-secret"),
  "dynamicSecrets.list": r("list-dynamic-secrets"),
  "dynamicSecrets.get": r("get-dynamic-secret"),
  "dynamicSecrets.update": c("update-dynamic-secret"),
  "dynamicSecrets.delete": c("delete-dynamic-secret"),
  "dynamicSecrets.createLease": c("create-dynamic-secret-lease"),
  "dynamicSecrets.listLeases": r("list-dynamic-secret-leases"),
  "dynamicSecrets.getLease": r("get-dynamic-secret-lease"),
  "dynamicSecrets.renewLease": c("renew-dynamic-secret-lease"),
  "dynamicSecrets.revokeLease": c("delete-dynamic-secret-lease"),

  "audit.query": r("get-audit-logs"),
  "audit.head": r("get-audit-log-head"),
};

/** The event type of an operation, or undefined when it is unaudited or (a bug the route test catches) unlisted. */
export const eventTypeOf = (key: string): AuditEventType | undefined => AUDIT_EVENT_TYPES[key];
