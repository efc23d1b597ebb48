import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { cmekRepository } from "../../src/kms/keys/repository.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const text = (base64: string) => Buffer.from(base64, "base64").toString();
const versionOf = (ciphertext: string) => Buffer.from(ciphertext, "base64").readUInt32BE(1);
const DAY = 86_400_000;

forEachStore("KMS key rotation", (store) => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), projectType: "kms" });
  });
  afterAll(() => w?.close());

  it("makes new material primary while ciphertexts of every earlier version still decrypt", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "rotating" });
    const made: { version: number; ciphertext: string; plaintext: string }[] = [];
    for (let round = 1; round <= 3; round++) {
      const plaintext = `written under version ${round}`;
      const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64(plaintext) });
      made.push({ version: round, ciphertext, plaintext });
      const { key: rotated } = await w.sr.kms.rotateKey(w.admin, { keyId: key.id });
      expect(rotated.version).toBe(round + 1);
    }
    for (const { version, ciphertext, plaintext } of made) {
      expect(versionOf(ciphertext)).toBe(version);
      expect(text((await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext })).plaintext)).toBe(plaintext);
    }
    const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("new") });
    expect(versionOf(ciphertext)).toBe(4);
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key.version).toBe(4);
  });

  it("serializes concurrent rotations of one key: each makes its own version", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "contended" });
    const results = await Promise.all([1, 2, 3].map(() => w.sr.kms.rotateKey(w.admin, { keyId: key.id })));
    expect(results.map((r) => r.key.version).sort()).toEqual([2, 3, 4]);
    const versions = await w.storage.tables.cmekKeyVersions.find({ keyId: key.id }, { orderBy: [["version", "asc"]] });
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4]);
  });

  it("keeps signatures and MACs made before a rotation verifying, and publishes the new public key", async () => {
    const { key: signer } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "rotating-signer", keyUsage: "sign-verify", algorithm: "ECC_NIST_P256" });
    const { key: mac } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "rotating-mac", keyUsage: "generate-verify-mac", algorithm: "HMAC_SHA_256" });
    const data = b64("release 1.0");
    const signing = { keyId: signer.id, data, signingAlgorithm: "ECDSA_SHA_256" } as const;
    const before = await w.sr.kms.sign(w.admin, signing);
    const oldPublicKey = (await w.sr.kms.publicKey(w.admin, { keyId: signer.id })).publicKey;
    const oldMac = (await w.sr.kms.generateMac(w.admin, { keyId: mac.id, data })).mac;

    await w.sr.kms.rotateKey(w.admin, { keyId: signer.id });
    await w.sr.kms.rotateKey(w.admin, { keyId: mac.id });

    expect((await w.sr.kms.publicKey(w.admin, { keyId: signer.id })).publicKey).not.toBe(oldPublicKey);
    expect((await w.sr.kms.verify(w.admin, { ...signing, signature: before.signature })).signatureValid).toBe(true);
    const after = await w.sr.kms.sign(w.admin, signing);
    expect((await w.sr.kms.verify(w.admin, { ...signing, signature: after.signature })).signatureValid).toBe(true);
    expect((await w.sr.kms.verifyMac(w.admin, { keyId: mac.id, data, mac: oldMac })).macValid).toBe(true);
    const newMac = (await w.sr.kms.generateMac(w.admin, { keyId: mac.id, data })).mac;
    expect(newMac).not.toBe(oldMac);
    expect((await w.sr.kms.verifyMac(w.admin, { keyId: mac.id, data, mac: newMac })).macValid).toBe(true);
  });

  it("rotates on the key's interval when the scheduler runs, once, and not while the key is disabled", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "scheduled", rotationIntervalDays: 30 });
    expect(key.nextRotationAt).toBe(new Date(w.clock.now().getTime() + 30 * DAY).toISOString());
    const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("old") });

    w.clock.advance(29 * DAY);
    await w.sr.scheduler.runDue();
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key.version).toBe(1);

    w.clock.advance(2 * DAY);
    expect(await w.sr.scheduler.runDue()).toContain("kms-key-rotation");
    const rotated = (await w.sr.kms.getKey(w.admin, { keyId: key.id })).key;
    expect(rotated.version).toBe(2);
    expect(rotated.nextRotationAt).toBe(new Date(w.clock.now().getTime() + 30 * DAY).toISOString());
    await w.sr.scheduler.runDue();
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key.version).toBe(2);
    expect(text((await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext })).plaintext)).toBe("old");

    await w.sr.kms.updateKey(w.admin, { keyId: key.id, isDisabled: true });
    w.clock.advance(31 * DAY);
    await w.sr.scheduler.runDue();
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key.version).toBe(2);

    const { key: off } = await w.sr.kms.updateKey(w.admin, { keyId: key.id, isDisabled: false, rotationIntervalDays: null });
    expect(off).toMatchObject({ rotationIntervalDays: null, nextRotationAt: null });
    w.clock.advance(31 * DAY);
    await w.sr.scheduler.runDue();
    expect((await w.sr.kms.getKey(w.admin, { keyId: key.id })).key.version).toBe(2);
  });

  it("re-seals every key version of a project under a new data key, and keys keep working", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "rewrapped" });
    const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("survives a rewrap") });
    await w.sr.kms.rotateKey(w.admin, { keyId: key.id });

    const ctx = w.sr.context;
    const { project } = await w.sr.projects.get(w.admin, { projectId: w.projectId } as never);
    const from = project.kmsSecretManagerKeyId;
    const to = await ctx.keys.createDataKey(ctx.storage, { orgId: w.orgId, projectId: w.projectId }, "secret-manager", w.clock.now());
    const total = await w.storage.tables.cmekKeyVersions.count({ projectId: w.projectId });
    expect(await ctx.repo(cmekRepository).resealKeys(w.projectId, from, to)).toBe(total);
    expect(await w.storage.tables.cmekKeyVersions.count({ projectId: w.projectId, sealedWith: to })).toBe(total);
    expect(await ctx.repo(cmekRepository).resealKeys(w.projectId, from, to)).toBe(0);

    // `open` reads the stored rows, not the cache of opened keys: the re-sealed material opens under the new data key.
    const repo = ctx.repo(cmekRepository);
    for (const row of await repo.versions(key.id)) expect((await repo.open(row)).length).toBe(32);
    expect(text((await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext })).plaintext)).toBe("survives a rewrap");
  });
});
