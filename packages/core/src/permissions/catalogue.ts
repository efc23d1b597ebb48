/** CASL's wildcards: `manage` matches every action, `all` every subject. */
export const ANY_ACTION = "manage";
export const ANY_SUBJECT = "all";

const CRUD = ["read", "create", "edit", "delete"] as const;

/**
 * Every project subject and the actions it knows (DESIGN.md §4). Extend, never rename: stored
 * custom roles and privileges refer to these strings.
 */
export const PROJECT_PERMISSION_CATALOGUE = {
  secrets: ["read", "describeSecret", "readValue", "create", "edit", "delete"],
  "secret-folders": CRUD,
  "secret-imports": CRUD,
  environments: CRUD,
  tags: CRUD,
  role: CRUD,
  member: CRUD,
  identity: [...CRUD, "grant-privileges"],
  "secret-events": [
    "subscribe-on-created",
    "subscribe-on-updated",
    "subscribe-on-deleted",
    "subscribe-on-import-mutations",
    "subscribe-on-dynamic-secret-leases",
  ],
  "proxied-services": CRUD,
  "certificate-authorities": CRUD,
  certificates: CRUD,
  "certificate-profiles": CRUD,
  "pki-discovery": CRUD,
  "pki-installations": CRUD,
  "pki-alerts": CRUD,
  kms: [...CRUD, "encrypt", "decrypt", "sign", "verify"],
  // Infisical's names: `settings` is the project's own fields, `workspace` the project as a whole.
  settings: ["read", "edit"],
  workspace: ["edit", "delete"],
  /** `read` shows metadata only; root credentials are never answered, whatever the action. */
  "dynamic-secrets": ["read", "read-root-credential", "create-root-credential", "edit-root-credential", "delete-root-credential", "lease"],
  /** The project's audit log (DESIGN.md §11): only admins and roles that name it; viewers and members do not. */
  "audit-logs": ["read"],
} as const satisfies Record<string, readonly string[]>;

export type ProjectPermissionSubject = keyof typeof PROJECT_PERMISSION_CATALOGUE;
export type ProjectPermissionAction<S extends ProjectPermissionSubject = ProjectPermissionSubject> =
  (typeof PROJECT_PERMISSION_CATALOGUE)[S][number];
