import { describe, expect, it } from "vitest";
import type { AccessTokenRow } from "../../tenancy/tables.js";
import { accessTokens, universalAuths as universalAuthsTable } from "../../tenancy/tables.js";
import { sampleRow } from "../sample-rows.js";
import { type StorageUnderTest, ids, user } from "./fixtures.js";

/** Access tokens cover text, nullable text and (nullable) timestamps in one table. */
function token(seed: number, overrides: Partial<AccessTokenRow> = {}): AccessTokenRow {
  return {
    ...sampleRow(accessTokens, seed),
    tokenHash: `hash-${seed}`,
    actorType: "identity",
    actorId: `actor-${seed}`,
    orgId: null,
    revokedAt: null,
    lastUsedAt: null,
    expiresAt: `2026-01-0${seed}T00:00:00.000Z`,
    ...overrides,
  };
}

export function queryTests(storage: StorageUnderTest): void {
  const seedTokens = async () => {
    const rows = [
      token(1, { orgId: "org-a", actorType: "user" }),
      token(2, { orgId: "org-a", revokedAt: "2026-02-01T00:00:00.000Z" }),
      token(3, { orgId: "org-b" }),
      token(4),
    ];
    await storage().tables.accessTokens.insertMany(rows);
    return rows;
  };
  const tokenIds = (...seeds: number[]) => seeds.map((seed) => token(seed).id);
  const sorted = (rows: { id: string }[]) => ids(rows).sort();

  describe("where", () => {
    it("fields are ANDed; a bare value means equality, booleans included", async () => {
      const { accessTokens, users } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ orgId: "org-a" }))).toEqual(tokenIds(1, 2));
      expect(sorted(await accessTokens.find({ orgId: "org-a", actorType: "identity" }))).toEqual(tokenIds(2));

      await users.insertMany([user(1, { isEmailVerified: true }), user(2, { isEmailVerified: false })]);
      expect(ids(await users.find({ isEmailVerified: true }))).toEqual([user(1).id]);
      expect(ids(await users.find({ isEmailVerified: false }))).toEqual([user(2).id]);
    });

    it("null matches NULL only, {ne: null} everything else", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ orgId: null }))).toEqual(tokenIds(4));
      expect(sorted(await accessTokens.find({ revokedAt: { ne: null } }))).toEqual(tokenIds(2));
      expect(await accessTokens.count({ orgId: { ne: null } })).toBe(3);
    });

    it("{ne: value} also matches rows where the column is NULL", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ orgId: { ne: "org-a" } }))).toEqual(tokenIds(3, 4));
    });

    it("{in} matches any listed value, NULL when listed, and nothing for an empty list", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ orgId: { in: ["org-b", "org-z"] } }))).toEqual(tokenIds(3));
      expect(sorted(await accessTokens.find({ orgId: { in: ["org-b", null] } }))).toEqual(tokenIds(3, 4));
      expect(await accessTokens.find({ orgId: { in: [] } })).toEqual([]);
      expect(await accessTokens.count({ id: { in: tokenIds(1, 4, 9) } })).toBe(2);
    });

    it("lt, lte, gt and gte compare timestamps and integers; NULL never compares", async () => {
      const { accessTokens, universalAuths } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ expiresAt: { lt: "2026-01-02T00:00:00.000Z" } }))).toEqual(tokenIds(1));
      expect(sorted(await accessTokens.find({ expiresAt: { lte: "2026-01-02T00:00:00.000Z" } }))).toEqual(tokenIds(1, 2));
      expect(sorted(await accessTokens.find({ expiresAt: { gt: "2026-01-03T00:00:00.000Z" } }))).toEqual(tokenIds(4));
      expect(sorted(await accessTokens.find({ expiresAt: { gte: "2026-01-03T00:00:00.000Z" } }))).toEqual(tokenIds(3, 4));
      expect(sorted(await accessTokens.find({ revokedAt: { lt: "2099-01-01T00:00:00.000Z" } }))).toEqual(tokenIds(2));

      const auth = (seed: number, failedLogins: number) => ({
        ...sampleRow(universalAuthsTable, seed),
        identityId: `identity-${seed}`,
        clientId: `client-${seed}`,
        failedLogins,
      });
      await universalAuths.insertMany([auth(1, -5), auth(2, 0), auth(3, 2), auth(4, 10), auth(5, 2 ** 40)]);
      expect(await universalAuths.count({ failedLogins: { lt: 2 } })).toBe(2);
      expect(await universalAuths.count({ failedLogins: { gte: 2 } })).toBe(3);
      expect(await universalAuths.count({ failedLogins: { gt: 9 } })).toBe(2);
      expect(await universalAuths.count({ failedLogins: { lte: -5 } })).toBe(1);
    });

    it("{contains} is a case-insensitive substring match that takes %, _ and \\ literally", async () => {
      const { users } = storage().tables;
      await users.insertMany([
        user(1, { firstName: "Ada Lovelace" }),
        user(2, { firstName: "ADAM" }),
        user(3, { firstName: "100% sure_thing" }),
        user(4, { firstName: "back\\slash" }),
        user(5, { firstName: "10 percent sureXthing" }),
      ]);
      expect(sorted(await users.find({ firstName: { contains: "ada" } }))).toEqual([user(1).id, user(2).id]);
      expect(sorted(await users.find({ firstName: { contains: "LOVE" } }))).toEqual([user(1).id]);
      expect(sorted(await users.find({ firstName: { contains: "0% s" } }))).toEqual([user(3).id]);
      expect(sorted(await users.find({ firstName: { contains: "e_t" } }))).toEqual([user(3).id]);
      expect(sorted(await users.find({ firstName: { contains: "k\\s" } }))).toEqual([user(4).id]);
      expect(await users.count({ firstName: { contains: "%" } })).toBe(1);
      expect(await users.count({ firstName: { contains: "" } })).toBe(5);
    });

    it("$or matches any of its groups and combines with the other fields by AND", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      expect(sorted(await accessTokens.find({ $or: [{ orgId: "org-b" }, { actorType: "user" }] }))).toEqual(tokenIds(1, 3));
      expect(sorted(await accessTokens.find({ orgId: "org-a", $or: [{ actorType: "user" }, { revokedAt: { ne: null } }] }))).toEqual(tokenIds(1, 2));
      expect(sorted(await accessTokens.find({ $or: [{ orgId: null }, { $or: [{ id: token(3).id }] }] }))).toEqual(tokenIds(3, 4));
      expect(await accessTokens.find({ $or: [] })).toEqual([]);
      expect(await accessTokens.update({ $or: [{ orgId: "org-b" }, { orgId: null }] }, { lastUsedAt: "2026-03-01T00:00:00.000Z" })).toBe(2);
      expect(await accessTokens.delete({ $or: [{ orgId: "org-b" }, { orgId: null }] })).toBe(2);
      expect(sorted(await accessTokens.find())).toEqual(tokenIds(1, 2));
    });

    it("fields set to undefined are ignored", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      expect(await accessTokens.count({ orgId: undefined, actorType: "identity" })).toBe(3);
    });
  });

  describe("ordering and paging", () => {
    it("orderBy sorts by several columns in either direction", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      const rows = await accessTokens.find({}, { orderBy: [["actorType", "desc"], ["expiresAt", "desc"]] });
      expect(ids(rows)).toEqual(tokenIds(1, 4, 3, 2));
    });

    it("NULL sorts first ascending and last descending", async () => {
      const { accessTokens } = storage().tables;
      await seedTokens();
      const ascending = await accessTokens.find({}, { orderBy: [["orgId", "asc"], ["id", "asc"]] });
      expect(ids(ascending)).toEqual(tokenIds(4, 1, 2, 3));
      const descending = await accessTokens.find({}, { orderBy: [["orgId", "desc"], ["id", "desc"]] });
      expect(ids(descending)).toEqual(tokenIds(3, 2, 1, 4));
    });

    it("text sorts by code point, not by locale", async () => {
      const { users } = storage().tables;
      const names = ["apple", "Zebra", "Ärger", "ab", "a", "10", "9", "😀", "\uffee"];
      await users.insertMany(names.map((firstName, i) => user(i, { firstName })));
      const rows = await users.find({}, { orderBy: [["firstName", "asc"]] });
      expect(rows.map((row) => row.firstName)).toEqual(["10", "9", "Zebra", "a", "ab", "apple", "Ärger", "\uffee", "😀"]);
    });

    it("limit and offset page through the ordered rows", async () => {
      const { users } = storage().tables;
      await users.insertMany([5, 3, 1, 4, 2].map((seed) => user(seed)));
      const page = (options: { limit?: number; offset?: number }) =>
        users.find({}, { orderBy: [["id", "asc"]], ...options }).then(ids);
      expect(await page({ limit: 2 })).toEqual([user(1).id, user(2).id]);
      expect(await page({ limit: 2, offset: 2 })).toEqual([user(3).id, user(4).id]);
      expect(await page({ offset: 3 })).toEqual([user(4).id, user(5).id]);
      expect(await page({ limit: 10, offset: 4 })).toEqual([user(5).id]);
      expect(await page({ limit: 0 })).toEqual([]);
      expect(await page({ offset: 10 })).toEqual([]);
    });
  });
}
