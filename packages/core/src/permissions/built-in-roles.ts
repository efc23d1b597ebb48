import { ANY_ACTION, ANY_SUBJECT, PROJECT_PERMISSION_CATALOGUE, type ProjectPermissionSubject } from "./catalogue.js";
import type { PermissionRule } from "./schema.js";
import { nameBasedUuid } from "./stable-id.js";

export type BuiltInProjectRoleSlug = "admin" | "member" | "viewer" | "no-access";

export interface BuiltInProjectRole {
  readonly id: string;
  readonly slug: BuiltInProjectRoleSlug;
  readonly name: string;
  readonly description: string;
  /** Frozen: the same arrays are shared by every request. */
  readonly permissions: PermissionRule[];
}

// Fixed forever: built-in role ids derive from it, and clients may have stored them.
const BUILT_IN_ROLE_NAMESPACE = "0b6f3c2e-5d1a-4f7e-9c48-2a9e7d13b5f0";

export const builtInProjectRoleId = (slug: BuiltInProjectRoleSlug): string =>
  nameBasedUuid(BUILT_IN_ROLE_NAMESPACE, `project-role:${slug}`);

const catalogueActions = (subject: ProjectPermissionSubject): string[] => [...PROJECT_PERMISSION_CATALOGUE[subject]];

const fullAccess = (...subjects: ProjectPermissionSubject[]): PermissionRule[] =>
  subjects.map((subject) => ({ subject, action: catalogueActions(subject) }));

// What a viewer may do: look, including at secret values, and follow changes; never change anything.
const isObservingAction = (action: string): boolean =>
  action === "read" || action === "describeSecret" || action === "readValue" || action.startsWith("subscribe-");

// "Viewer reads everything" stops at the audit log (DESIGN.md §11).
const NOT_OBSERVED: ReadonlySet<ProjectPermissionSubject> = new Set(["audit-logs"]);

const observeEverything = (): PermissionRule[] =>
  (Object.keys(PROJECT_PERMISSION_CATALOGUE) as ProjectPermissionSubject[]).filter((subject) => !NOT_OBSERVED.has(subject)).flatMap((subject) => {
    const actions = catalogueActions(subject).filter(isObservingAction);
    return actions.length > 0 ? [{ subject, action: actions }] : [];
  });

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}

const role = (slug: BuiltInProjectRoleSlug, name: string, description: string, permissions: PermissionRule[]): BuiltInProjectRole =>
  deepFreeze({ id: builtInProjectRoleId(slug), slug, name, description, permissions });

const roles: Record<BuiltInProjectRoleSlug, BuiltInProjectRole> = {
  admin: role("admin", "Admin", "Full access to every resource of the project", [{ subject: ANY_SUBJECT, action: ANY_ACTION }]),
  member: role("member", "Developer", "Manages secrets, folders, imports, tags and environments; subscribes to secret events; reads roles; uses KMS keys; leases dynamic secrets", [
    ...fullAccess("secrets", "secret-folders", "secret-imports", "tags", "environments", "secret-events"),
    { subject: "role", action: ["read"] },
    // Uses KMS keys, never changes them (DESIGN.md §11).
    { subject: "kms", action: ["read", "encrypt", "decrypt", "sign", "verify"] },
    // Leases dynamic secrets, never touches their root credentials (DESIGN.md §11).
    { subject: "dynamic-secrets", action: ["read", "lease"] },
  ]),
  viewer: role("viewer", "Viewer", "Reads every resource of the project and subscribes to secret events", observeEverything()),
  "no-access": role("no-access", "No Access", "No access to any resource of the project", []),
};

/**
 * The built-in project roles by slug, in listing order. The object has no prototype, so a slug
 * such as "constructor" taken from a request finds nothing rather than an Object method.
 */
export const builtInProjectRoles: Readonly<Record<BuiltInProjectRoleSlug, BuiltInProjectRole>> = Object.freeze(
  Object.assign(Object.create(null) as Record<BuiltInProjectRoleSlug, BuiltInProjectRole>, roles),
);

export function findBuiltInProjectRole(slug: string): BuiltInProjectRole | undefined {
  return Object.hasOwn(builtInProjectRoles, slug) ? builtInProjectRoles[slug as BuiltInProjectRoleSlug] : undefined;
}
