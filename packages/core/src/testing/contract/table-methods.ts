import { expect, it } from "vitest";
import { universalAuths as universalAuthsTable } from "../../tenancy/tables.js";
import { sampleRow } from "../sample-rows.js";
import { type StorageUnderTest, ids, user } from "./fixtures.js";

export function tableMethodTests(storage: StorageUnderTest): void {
  it("insert then get returns the same row; an unknown id gives undefined", async () => {
    const { users } = storage().tables;
    const row = user(1);
    await users.insert(row);
    expect(await users.get(row.id)).toEqual(row);
    expect(await users.get("no-such-id")).toBeUndefined();
  });

  it("rows go in and come out as copies: mutating them never changes what is stored", async () => {
    const { universalAuths } = storage().tables;
    const row = { ...sampleRow(universalAuthsTable, 1), clientId: "client-1", failedLogins: 0, clientSecretTrustedIps: [{ ipAddress: "10.0.0.1" }] };
    await universalAuths.insert(row);
    row.clientSecretTrustedIps[0].ipAddress = "changed by caller";
    row.clientId = "changed by caller";

    const first = (await universalAuths.get(row.id))!;
    first.clientSecretTrustedIps.push({ ipAddress: "pushed" });
    const listed = await universalAuths.find({});
    listed[0].failedLogins = 99;

    const stored = (await universalAuths.get(row.id))!;
    expect(stored.clientSecretTrustedIps).toEqual([{ ipAddress: "10.0.0.1" }]);
    expect(stored.clientId).toBe("client-1");
    expect(stored.failedLogins).toBe(0);
  });

  it("insertMany stores every row", async () => {
    const { users } = storage().tables;
    await users.insertMany([user(1), user(2), user(3)]);
    await users.insertMany([]);
    expect(await users.count()).toBe(3);
  });

  it("findOne returns a matching row or undefined", async () => {
    const { users } = storage().tables;
    await users.insertMany([user(1, { firstName: "Ada" }), user(2, { firstName: "Grace" })]);
    expect((await users.findOne({ firstName: "Grace" }))?.id).toBe(user(2).id);
    expect(await users.findOne({ firstName: "Nobody" })).toBeUndefined();
  });

  it("find and count without a condition see every row; with one, only the matches", async () => {
    const { users } = storage().tables;
    await users.insertMany([user(1, { lastName: "A" }), user(2, { lastName: "B" }), user(3, { lastName: "A" })]);
    expect(ids(await users.find()).sort()).toEqual([user(1).id, user(2).id, user(3).id].sort());
    expect(await users.count()).toBe(3);
    expect(await users.count({ lastName: "A" })).toBe(2);
    expect(ids(await users.find({ lastName: "A" })).sort()).toEqual([user(1).id, user(3).id].sort());
  });

  it("update changes only matching rows and returns how many matched", async () => {
    const { users } = storage().tables;
    await users.insertMany([user(1, { lastName: "A" }), user(2, { lastName: "B" }), user(3, { lastName: "A" })]);
    expect(await users.update({ lastName: "A" }, { firstName: "Renamed", isEmailVerified: true })).toBe(2);
    expect(await users.update({ lastName: "Z" }, { firstName: "Nobody" })).toBe(0);

    expect(await users.get(user(1).id)).toEqual({ ...user(1, { lastName: "A" }), firstName: "Renamed", isEmailVerified: true });
    expect(await users.get(user(2).id)).toEqual(user(2, { lastName: "B" }));
  });

  it("update counts a matched row even when nothing in it changes, and ignores undefined patch fields", async () => {
    const { users } = storage().tables;
    await users.insert(user(1, { firstName: "Same" }));
    expect(await users.update({ id: user(1).id }, { firstName: "Same", lastName: undefined })).toBe(1);
    expect(await users.update({ id: user(1).id }, {})).toBe(1);
    expect(await users.get(user(1).id)).toEqual(user(1, { firstName: "Same" }));
  });

  it("updateMany sets each row's columns by id, only where its expected values still hold, and counts the rows changed", async () => {
    const { universalAuths } = storage().tables;
    const rows = [1, 2, 3, 4].map((seed) => ({ ...sampleRow(universalAuthsTable, seed), clientId: `client-${seed}`, failedLogins: 0 }));
    await universalAuths.insertMany(rows);
    const changed = await universalAuths.updateMany([
      { id: rows[0].id, expect: { failedLogins: 0 }, patch: { failedLogins: 1, clientSecretTrustedIps: [{ ipAddress: "10.0.0.9" }] } },
      // Its expected value no longer holds: left as it is.
      { id: rows[1].id, expect: { failedLogins: 5 }, patch: { failedLogins: 6 } },
      // Another shape: no condition, another column.
      { id: rows[2].id, patch: { clientId: "renamed", accessTokenTTL: 60 } },
      { id: "no-such-id", patch: { clientId: "nobody" } },
    ]);
    expect(changed).toBe(2);
    expect(await universalAuths.get(rows[0].id)).toEqual({ ...rows[0], failedLogins: 1, clientSecretTrustedIps: [{ ipAddress: "10.0.0.9" }] });
    expect(await universalAuths.get(rows[1].id)).toEqual(rows[1]);
    expect(await universalAuths.get(rows[2].id)).toEqual({ ...rows[2], clientId: "renamed", accessTokenTTL: 60 });
    expect(await universalAuths.get(rows[3].id)).toEqual(rows[3]);
    expect(await universalAuths.updateMany([])).toBe(0);
  });

  it("updateMany changes more rows than one statement can carry", async () => {
    const { universalAuths } = storage().tables;
    const rows = Array.from({ length: 12_000 }, (_, i) => ({ ...sampleRow(universalAuthsTable, i + 1), clientId: `client-${i}`, failedLogins: i }));
    await universalAuths.insertMany(rows);
    const changed = await universalAuths.updateMany(rows.map((row) => ({ id: row.id, expect: { failedLogins: row.failedLogins }, patch: { failedLogins: row.failedLogins + 1 } })));
    expect(changed).toBe(rows.length);
    expect(await universalAuths.count({ failedLogins: 0 })).toBe(0);
    expect((await universalAuths.get(rows[11_999].id))!.failedLogins).toBe(12_000);
  });

  it("writeStamp, where the store gives one, stays while only reads run and moves with every write", async () => {
    const store = storage();
    if (!store.writeStamp) return;
    const { users } = store.tables;
    const before = store.writeStamp();
    await users.find({});
    expect(store.writeStamp()).toBe(before);
    await users.insert(user(1));
    const inserted = store.writeStamp();
    expect(inserted).not.toBe(before);
    await store.transaction((tx) => tx.tables.users.update({ id: user(1).id }, { firstName: "Changed" }));
    expect(store.writeStamp()).not.toBe(inserted);
  });

  it("delete removes matching rows and returns how many", async () => {
    const { users } = storage().tables;
    await users.insertMany([user(1, { lastName: "A" }), user(2, { lastName: "B" }), user(3, { lastName: "A" })]);
    expect(await users.delete({ lastName: "A" })).toBe(2);
    expect(await users.delete({ lastName: "A" })).toBe(0);
    expect(ids(await users.find())).toEqual([user(2).id]);
  });

  it("rejects a row or condition naming a column the table does not have", async () => {
    const { users } = storage().tables;
    await expect(users.insert({ ...user(1), nickname: "x" } as never)).rejects.toThrow();
    await expect(users.find({ nickname: "x" } as never)).rejects.toThrow();
    expect(await users.count()).toBe(0);
  });

  it("rejects NULL in a column that is not nullable", async () => {
    const { users } = storage().tables;
    await expect(users.insert({ ...user(1), firstName: null } as never)).rejects.toThrow();
    await users.insert(user(2));
    await expect(users.update({ id: user(2).id }, { firstName: null } as never)).rejects.toThrow();
    expect(await users.get(user(2).id)).toEqual(user(2));
  });
}
