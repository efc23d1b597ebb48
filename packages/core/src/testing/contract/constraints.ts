import { describe, expect, it } from "vitest";
import { UniqueViolationError } from "../../storage/table.js";
import { strongroomSchema as schema } from "../../schema.js";
import { projects } from "../../access/tables.js";
import type { Table } from "../../storage/table.js";
import { sampleRow } from "../sample-rows.js";
import { type StorageUnderTest, ids, user } from "./fixtures.js";

/** Resolves to the error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the call to reject"),
    (error: unknown) => error,
  );
}

function expectUniqueViolation(error: unknown, table: string, columns: string[]) {
  expect(error).toBeInstanceOf(UniqueViolationError);
  expect(error).toMatchObject({ table, columns });
}

export function constraintTests(storage: StorageUnderTest): void {
  describe("unique constraints", () => {
    it("a second row with the same id is refused and the first stays as it was", async () => {
      const { users } = storage().tables;
      await users.insert(user(1));
      const error = await rejection(users.insert(user(2, { id: user(1).id })));
      expectUniqueViolation(error, "users", ["id"]);
      expect(await users.get(user(1).id)).toEqual(user(1));
      expect(await users.count()).toBe(1);
    });

    it("single-column and multi-column unique groups are enforced and named", async () => {
      const { users, orgMemberships } = storage().tables;
      await users.insert(user(1));
      expectUniqueViolation(await rejection(users.insert(user(2, { email: user(1).email }))), "users", ["email"]);

      const membership = (id: string, orgId: string, userId: string) => ({
        ...sampleRow(schema.orgMemberships, 1),
        id,
        orgId,
        userId,
      });
      await orgMemberships.insertMany([membership("m1", "org-1", "user-1"), membership("m2", "org-1", "user-2"), membership("m3", "org-2", "user-1")]);
      expectUniqueViolation(await rejection(orgMemberships.insert(membership("m4", "org-1", "user-1"))), "org_memberships", ["orgId", "userId"]);
      expect(await orgMemberships.count()).toBe(3);
    });

    it("a unique group containing NULL never conflicts, as in SQL", async () => {
      const { projectMemberships } = storage().tables;
      const membership = (id: string, userId: string | null, identityId: string | null) => ({
        ...sampleRow(schema.projectMemberships, 1),
        id,
        projectId: "project-1",
        userId,
        identityId,
      });
      await projectMemberships.insertMany([
        membership("m1", "user-1", null),
        membership("m2", "user-2", null),
        membership("m3", null, "identity-1"),
        membership("m4", null, "identity-2"),
      ]);
      expect(await projectMemberships.count()).toBe(4);
      expectUniqueViolation(
        await rejection(projectMemberships.insert(membership("m5", null, "identity-1"))),
        "project_memberships",
        ["projectId", "identityId"],
      );
    });

    it("an update that would duplicate a unique group is refused and changes nothing", async () => {
      const { users } = storage().tables;
      await users.insertMany([user(1, { lastName: "A" }), user(2, { lastName: "B" }), user(3, { lastName: "B" })]);
      expectUniqueViolation(await rejection(users.update({ id: user(2).id }, { email: user(1).email })), "users", ["email"]);
      expectUniqueViolation(await rejection(users.update({ lastName: "B" }, { username: "same-for-both" })), "users", ["username"]);
      expect(await users.get(user(2).id)).toEqual(user(2, { lastName: "B" }));
      expect(await users.get(user(3).id)).toEqual(user(3, { lastName: "B" }));
    });

    it("insertMany is all or nothing: a conflict in the last of 5,000 rows stores none of them", async () => {
      const { projects: table } = storage().tables;
      const project = (seed: number, slug: string) => ({ ...sampleRow(projects, seed), orgId: "org-1", slug });
      const existing = project(0, "taken");
      await table.insert(existing);
      const rows = Array.from({ length: 5000 }, (_, i) => project(i + 1, `slug-${i}`));
      rows[rows.length - 1].slug = "taken";
      expectUniqueViolation(await rejection(table.insertMany(rows)), "projects", ["orgId", "slug"]);
      expect(await table.count()).toBe(1);

      const withDuplicateIds = [project(1, "one"), project(1, "other")];
      expectUniqueViolation(await rejection(table.insertMany(withDuplicateIds)), "projects", ["id"]);
      expect(await table.count()).toBe(1);
    });
  });

  describe("values round-trip exactly", () => {
    it("json: nested objects, arrays, unicode, quotes, numbers, booleans and nulls", async () => {
      const { identityPrivileges, environments } = storage().tables;
      const permissions = [
        { subject: "secrets", action: ["read", "edit"], conditions: { secretPath: { $glob: "/a/**" }, environment: "prod" } },
        { inverted: true, nested: { deep: [1, -2.5, 1e21, 0, true, false, null, "", "ünï ❤ \"q\" \\ 'x'"] } },
        [],
        {},
      ];
      const privilege = { ...sampleRow(schema.identityPrivileges, 1), permissions };
      await identityPrivileges.insert(privilege);
      expect((await identityPrivileges.get(privilege.id))!.permissions).toEqual(permissions);

      const deleted = { ...sampleRow(schema.environments, 1), deletedBy: { actor: "user-1" } };
      const live = { ...sampleRow(schema.environments, 2), deletedBy: null };
      await environments.insertMany([deleted, live]);
      expect((await environments.get(deleted.id))!.deletedBy).toEqual({ actor: "user-1" });
      expect((await environments.get(live.id))!.deletedBy).toBeNull();
      expect(await environments.count({ deletedBy: null })).toBe(1);
    });

    it("booleans, integers beyond 32 bits, negative integers, empty strings and timestamps", async () => {
      const { clientSecrets } = storage().tables;
      const row = {
        ...sampleRow(schema.clientSecrets, 1),
        isRevoked: true,
        ttl: 2 ** 53 - 1,
        numUses: -42,
        description: "",
        expiresAt: "2026-12-31T23:59:59.999Z",
      };
      const other = { ...sampleRow(schema.clientSecrets, 2), isRevoked: false, expiresAt: null };
      await clientSecrets.insertMany([row, other]);
      expect(await clientSecrets.get(row.id)).toEqual(row);
      expect(await clientSecrets.get(other.id)).toEqual(other);
      expect(typeof (await clientSecrets.get(row.id))!.ttl).toBe("number");
    });

    it("every table in the schema stores and finds a generated row, with and without NULLs", async () => {
      const tables = storage().tables as unknown as Record<string, Table<{ id: string } & Record<string, unknown>>>;
      for (const [key, def] of Object.entries(schema)) {
        const table = tables[key];
        const full = sampleRow(def, 1) as { id: string } & Record<string, unknown>;
        const sparse = sampleRow(def, 2, { nulls: true }) as { id: string } & Record<string, unknown>;
        await table.insertMany([full, sparse]);
        expect(await table.get(full.id), def.name).toEqual(full);
        expect(await table.get(sparse.id), def.name).toEqual(sparse);
        for (const [name, column] of Object.entries(def.columns)) {
          if (column.kind === "json") continue;
          expect(ids(await table.find({ [name]: full[name] })), `${def.name}.${name}`).toContain(full.id);
        }
        expect(await table.count(), def.name).toBe(2);
      }
    });
  });
}


