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
  ],
  "proxied-services": CRUD,
  "certificate-authorities": CRUD,
  certificates: CRUD,
  "certificate-profiles": CRUD,
  "pki-discovery": CRUD,
  "pki-installations": CRUD,
  "pki-alerts": CRUD,
  kms: [...CRUD, "encrypt", "decrypt", "sign", "verify"],
} as const satisfies Record<string, readonly string[]>;

export type ProjectPermissionSubject = keyof typeof PROJECT_PERMISSION_CATALOGUE;
export type ProjectPermissionAction<S extends ProjectPermissionSubject = ProjectPermissionSubject> =
  (typeof PROJECT_PERMISSION_CATALOGUE)[S][number];
