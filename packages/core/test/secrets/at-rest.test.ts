import { describe, expect, it } from "vitest";
import { createTestWorld } from "@strongroom/core/testing";
import { at, secretsWorld } from "./world.js";

describe("encryption at rest", () => {
  it("stores names, values, comments and encrypted metadata only as ciphertext, with a fresh IV each time", async () => {
    const w = await secretsWorld();
    const marker = "PLAINTEXT-MARKER-7f3a";
    await w.sr.secrets.create(w.admin, {
      ...at(w),
      secretName: `${marker}_NAME`,
      secretValue: `${marker}-value`,
      secretComment: `${marker}-comment`,
      secretMetadata: [{ key: "m", value: `${marker}-meta`, isEncrypted: true }],
    });
    await w.sr.secrets.create(w.admin, { ...at(w, "prod"), secretName: `${marker}_NAME`, secretValue: `${marker}-value` });
    await w.sr.secrets.update(w.admin, { ...at(w, "prod"), secretName: `${marker}_NAME`, secretValue: `${marker}-second` });
    const rows = [...(await w.storage.tables.secrets.find()), ...(await w.storage.tables.secretVersions.find())];
    expect(rows).toHaveLength(3);
    expect(JSON.stringify(rows)).not.toContain(marker);
    // One secret's two versions: a fresh IV and ciphertext on every write; the blind index stays.
    const [first] = await w.storage.tables.secretVersions.find();
    const second = (await w.storage.tables.secrets.get(first.secretId))!;
    expect(first.sealed).not.toBe(second.sealed);
    expect(first.sealed.split(".")[0]).not.toBe(second.sealed.split(".")[0]);
    expect(first.keyHash).toBe(second.keyHash);
    const { secret } = await w.sr.secrets.get(w.admin, { ...at(w), secretName: `${marker}_NAME` });
    expect(secret.secretMetadata).toEqual([{ key: "m", value: `${marker}-meta`, isEncrypted: true }]);
  });

  it("ciphertext moved onto another secret fails to open", async () => {
    const w = await secretsWorld();
    await w.sr.secrets.createMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "a" }, { secretKey: "B", secretValue: "b" }] });
    const rows = await w.storage.tables.secrets.find();
    await w.storage.tables.secrets.update({ id: rows[0].id }, { sealed: rows[1].sealed });
    await expect(w.sr.secrets.list(w.admin, at(w))).rejects.toThrow();
  });
});

describe("decrypted values kept in memory", () => {
  const read = async (w: Awaited<ReturnType<typeof secretsWorld>>) => {
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "KEPT", secretValue: "first" });
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "KEPT" })).secret.secretValue).toBe("first");
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "KEPT", secretValue: "second" });
    // A new ciphertext is never answered from what the old one opened to.
    expect((await w.sr.secrets.get(w.admin, { ...at(w), secretName: "KEPT" })).secret.secretValue).toBe("second");
    return w.sr.context.caches.sizes()["opened-seals"] ?? 0;
  };

  it("are kept by default, one per secret", async () => {
    expect(await read(await secretsWorld())).toBe(1);
  });

  it("are not kept at all when plaintextCacheSeconds is 0", async () => {
    const w = await createTestWorld({ config: { plaintextCacheSeconds: 0 } });
    expect(await read(w)).toBe(0);
  });
});
