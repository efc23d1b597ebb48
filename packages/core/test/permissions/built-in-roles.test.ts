import { describe, expect, it } from "vitest";
import {
  PROJECT_PERMISSION_CATALOGUE,
  builtInProjectRoles,
  can,
  compileRules,
  findBuiltInProjectRole,
  permissionRulesSchema,
} from "../../src/permissions/index.js";
import { nameBasedUuid } from "../../src/permissions/stable-id.js";

const subjects = Object.keys(PROJECT_PERMISSION_CATALOGUE) as (keyof typeof PROJECT_PERMISSION_CATALOGUE)[];
const compiled = Object.fromEntries(Object.values(builtInProjectRoles).map((role) => [role.slug, compileRules(role.permissions)]));
const allows = (slug: string, action: string, subject: string) => can(compiled[slug], action, subject, {});

describe("built-in project roles", () => {
  it("list admin, member, viewer and no-access with names and descriptions", () => {
    expect(Object.keys(builtInProjectRoles)).toEqual(["admin", "member", "viewer", "no-access"]);
    for (const role of Object.values(builtInProjectRoles)) {
      expect(role.name).not.toBe("");
      expect(role.description).not.toBe("");
      expect(permissionRulesSchema.safeParse(role.permissions).success).toBe(true);
    }
  });

  it("have stable, distinct UUIDs derived from the slug", () => {
    const ids = Object.values(builtInProjectRoles).map((role) => role.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Pinned: stored memberships and clients refer to these ids.
    expect(builtInProjectRoles.admin.id).toBe("3e601d25-60b0-58bd-bb31-ce32c10e4026");
  });

  it("derive ids as RFC 4122 version 5 does", () => {
    expect(nameBasedUuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.example.com")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
  });

  it("give admin every action on every subject", () => {
    for (const subject of subjects) for (const action of PROJECT_PERMISSION_CATALOGUE[subject]) expect(allows("admin", action, subject)).toBe(true);
  });

  it.each([
    ["secrets", ["read", "describeSecret", "readValue", "create", "edit", "delete"]],
    ["secret-folders", ["read", "create", "edit", "delete"]],
    ["secret-imports", ["read", "create", "edit", "delete"]],
    ["tags", ["read", "create", "edit", "delete"]],
    ["environments", ["read", "create", "edit", "delete"]],
    ["secret-events", ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"]],
    ["role", ["read"]],
    ["dynamic-secrets", ["read", "lease"]],
  ])("let members act on %s", (subject, actions) => {
    for (const action of actions) expect(allows("member", action, subject)).toBe(true);
  });

  it.each([
    ["edit", "role"],
    ["create", "member"],
    ["grant-privileges", "identity"],
    ["read", "certificates"],
    ["read-root-credential", "dynamic-secrets"],
    ["create-root-credential", "dynamic-secrets"],
    ["edit-root-credential", "dynamic-secrets"],
    ["delete-root-credential", "dynamic-secrets"],
  ])("do not let members %s %s", (action, subject) => {
    expect(allows("member", action, subject)).toBe(false);
  });

  it("let viewers read everything but the audit log and subscribe to events, and change nothing", () => {
    for (const subject of subjects) {
      for (const action of PROJECT_PERMISSION_CATALOGUE[subject]) {
        const observing =
          subject !== "audit-logs" && (action === "read" || action === "describeSecret" || action === "readValue" || action.startsWith("subscribe-"));
        expect(allows("viewer", action, subject), `${action} ${subject}`).toBe(observing);
      }
    }
  });

  it("give no-access nothing", () => {
    for (const subject of subjects) for (const action of PROJECT_PERMISSION_CATALOGUE[subject]) expect(allows("no-access", action, subject)).toBe(false);
  });

  it("are frozen and found only by their own slugs", () => {
    expect(() => builtInProjectRoles.admin.permissions.push({ subject: "all", action: "manage" })).toThrow(TypeError);
    expect(findBuiltInProjectRole("viewer")?.slug).toBe("viewer");
    expect(findBuiltInProjectRole("constructor")).toBeUndefined();
    expect(builtInProjectRoles["constructor" as "admin"]).toBeUndefined();
  });
});

describe("PROJECT_PERMISSION_CATALOGUE", () => {
  it("holds DESIGN.md's subjects and actions", () => {
    expect(subjects).toEqual(
      expect.arrayContaining([
        "secrets", "secret-folders", "secret-imports", "environments", "tags", "role", "member", "identity", "secret-events",
        "proxied-services", "certificate-authorities", "certificates", "certificate-profiles", "pki-discovery", "pki-installations", "pki-alerts",
      ]),
    );
    expect(PROJECT_PERMISSION_CATALOGUE.identity).toContain("grant-privileges");
    expect(PROJECT_PERMISSION_CATALOGUE.secrets).toEqual(expect.arrayContaining(["describeSecret", "readValue"]));
  });
});
