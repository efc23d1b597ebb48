import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

const b64 = (text: string) => Buffer.from(text).toString("base64");

forEachStore("KMS keys", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), projectType: "kms" });
  });
  afterAll(() => w?.close());

  it("creates keys with Infisical's shape, finds them by id and by name, and never shows material", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "payments", description: "card data", keyUsage: "encrypt-decrypt" });
    expect(key).toMatchObject({
      name: "payments",
      description: "card data",
      projectId: w.projectId,
      orgId: w.orgId,
      keyUsage: "encrypt-decrypt",
      algorithm: "aes-256-gcm",
      encryptionAlgorithm: "aes-256-gcm",
      version: 1,
      isDisabled: false,
      rotationIntervalDays: null,
      nextRotationAt: null,
    });
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key).toEqual(key);
    expect((await w.sr.kms.getKeyByName(w.admin, { projectId: w.projectId, keyName: "payments" })).key).toEqual(key);
    expect(JSON.stringify(key)).not.toMatch(/material|sealed|private/i);
  });

  it("lists keys by name a page at a time, with a total and a search", async () => {
    for (const name of ["zeta", "alpha", "beta-signer"]) await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name });
    const page = await w.sr.kms.listKeys(w.admin, { projectId: w.projectId, limit: 2 } as never);
    expect(page.totalCount).toBe(4);
    expect(page.keys.map((k) => k.name)).toEqual(["alpha", "beta-signer"]);
    const rest = await w.sr.kms.listKeys(w.admin, { projectId: w.projectId, offset: "2", limit: "2", orderDirection: "asc" } as never);
    expect(rest.keys.map((k) => k.name)).toEqual(["payments", "zeta"]);
    const found = await w.sr.kms.listKeys(w.admin, { projectId: w.projectId, search: "ET" } as never);
    expect(found.keys.map((k) => k.name)).toEqual(["beta-signer", "zeta"]);
  });

  it("round-trips data through encrypt and decrypt", async () => {
    const { key } = await w.sr.kms.getKeyByName(w.admin, { projectId: w.projectId, keyName: "payments" });
    const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("4111 1111 1111 1111") });
    expect(Buffer.from(ciphertext, "base64").toString()).not.toContain("4111");
    const { plaintext } = await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext });
    expect(Buffer.from(plaintext, "base64").toString()).toBe("4111 1111 1111 1111");
  });
});
