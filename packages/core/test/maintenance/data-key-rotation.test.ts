import { afterAll, beforeAll, expect, it } from "vitest";
import type { Actor } from "@strongroom/core";
import { rotateProjectDataKey, type RotationStep } from "@strongroom/core/maintenance";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { rewrapSecretRow, secretKeyOf } from "../../src/secret-manager/rewrap.js";

const at = (projectId: string) => ({ projectId, environment: "dev", secretPath: "/" });
const b64 = (text: string) => Buffer.from(text).toString("base64");

forEachStore("project data-key rotation", (store) => {
  let w: TestWorld;
  let alice: Actor;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
    alice = await w.userWith(["member"], "alice@acme.test");
  });
  afterAll(() => w?.close());

  /** Every secret of the project by name, as `actor` lists it (personal overrides in place). */
  async function listed(actor: Actor, projectId: string): Promise<Record<string, string>> {
    const { secrets } = await w.sr.secrets.list(actor, { ...at(projectId), includePersonalOverrides: true } as never);
    const out: Record<string, string> = {};
    for (const s of secrets) {
      expect(out[s.secretKey], `${s.secretKey} listed twice`).toBeUndefined();
      out[s.secretKey] = s.secretValue;
    }
    return out;
  }

  /** Every stored secret and version opens under `keyId` alone and carries its blind index. */
  async function allUnder(projectId: string, keyId: string): Promise<void> {
    const key = await secretKeyOf(w.sr.context, keyId);
    const rows = await w.storage.tables.secrets.find({ projectId });
    const versions = await w.storage.tables.secretVersions.find({ projectId });
    expect(rows.length + versions.length).toBeGreaterThan(0);
    for (const row of rows) expect(rewrapSecretRow(key, key, row, row.id)).toBeUndefined();
    for (const row of versions) expect(rewrapSecretRow(key, key, row, row.secretId)).toBeUndefined();
  }

  it("moves secrets, versions and blind indexes to a fresh key while reads and writes go on at every step", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Rotating" } as never);
    const p = project.id;
    await w.sr.memberships.addUsers(w.admin, { projectId: p, usernames: ["alice@acme.test"], roleSlugs: ["member"] });
    const expected: Record<string, string> = {};
    for (let i = 0; i < 12; i++) {
      await w.sr.secrets.create(w.admin, { ...at(p), secretName: `S${i}`, secretValue: `v${i}` });
      expected[`S${i}`] = `v${i}`;
    }
    for (const round of [1, 2]) await w.sr.secrets.update(w.admin, { ...at(p), secretName: "S0", secretValue: `v0.${round}` });
    expected.S0 = "v0.2";
    await w.sr.secrets.delete(w.admin, { ...at(p), secretName: "S11" });
    delete expected.S11;
    await w.sr.secrets.create(alice, { ...at(p), secretName: "S1", secretValue: "alice-1", type: "personal" } as never);
    const fromKeyId = project.kmsSecretManagerKeyId;

    const seen: RotationStep[] = [];
    const report = await rotateProjectDataKey(w.sr.context, p, {
      batchSize: 3,
      onProgress: (step) => seen.push(step),
      async sleep() {
        const step = seen[seen.length - 1].step;
        // Between the steps, as on a busy server: every read sees every secret, writes land.
        expect(await listed(alice, p)).toEqual({ ...expected, S1: step === "announced" ? "alice-1" : "alice-1b" });
        expect((await w.sr.secrets.get(w.admin, { ...at(p), secretName: "S2" })).secret.secretValue).toBe("v2");
        await w.sr.secrets.create(w.admin, { ...at(p), secretName: `NEW_${step}`, secretValue: step });
        expected[`NEW_${step}`] = step;
        await w.sr.secrets.update(w.admin, { ...at(p), secretName: "S3", secretValue: `v3-${step}` });
        expected.S3 = `v3-${step}`;
        // The override is rewritten under the new key while the shared secret it shadows is not yet: still one S1.
        if (step === "announced") await w.sr.secrets.update(alice, { ...at(p), secretName: "S1", secretValue: "alice-1b", type: "personal" } as never);
        // A name already taken under the old key's blind index is still taken.
        await expect(w.sr.secrets.create(w.admin, { ...at(p), secretName: "S4", secretValue: "dup" })).rejects.toThrow(/already exists/);
      },
    });

    expect(report).toMatchObject({ projectId: p, fromKeyId, resumed: false, oldKey: "deleted" });
    expect(report.moved.secrets).toBeGreaterThanOrEqual(12);
    expect(seen.map((s) => s.step)).toEqual(["announced", "switched", ...Array(report.passes).fill("swept")]);
    expect(await listed(alice, p)).toEqual({ ...expected, S1: "alice-1b" });
    expect(await listed(w.admin, p)).toEqual({ ...expected, S1: "v1" });

    // Afterwards nothing refers to the old key: it is gone, and every row opens under the new one.
    expect((await w.storage.tables.projects.get(p))!.kmsSecretManagerKeyId).toBe(report.toKeyId);
    expect(await w.storage.tables.kmsKeys.get(fromKeyId)).toBeUndefined();
    expect(await w.storage.tables.dataKeyRotations.count()).toBe(0);
    await allUnder(p, report.toKeyId);
  });

  it("resumes a rotation that stopped half-way", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Interrupted" } as never);
    for (let i = 0; i < 5; i++) await w.sr.secrets.create(w.admin, { ...at(project.id), secretName: `K${i}`, secretValue: `k${i}` });
    await expect(
      rotateProjectDataKey(w.sr.context, project.id, {
        sleep: async () => {
          throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    expect(await w.storage.tables.dataKeyRotations.get(project.id)).toMatchObject({ phase: "announced" });
    expect((await listed(w.admin, project.id)).K4).toBe("k4");

    const report = await rotateProjectDataKey(w.sr.context, project.id, { sleep: async () => {} });
    expect(report).toMatchObject({ resumed: true, fromKeyId: project.kmsSecretManagerKeyId, oldKey: "deleted" });
    expect(await listed(w.admin, project.id)).toEqual({ K0: "k0", K1: "k1", K2: "k2", K3: "k3", K4: "k4" });
    await allUnder(project.id, report.toKeyId);
  });

  it("re-seals KMS key material: ciphertexts made before decrypt after", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Keys", type: "kms" } as never);
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: project.id, name: "k" });
    const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("before the rotation") });
    await w.sr.kms.rotateKey(w.admin, { keyId: key.id });
    const report = await rotateProjectDataKey(w.sr.context, project.id, { sleep: async () => {} });
    expect(report.moved.kmsKeyVersions).toBe(2);
    expect(await w.storage.tables.cmekKeyVersions.count({ projectId: project.id, sealedWith: report.fromKeyId })).toBe(0);
    // A fresh instance on the same store opens the material from the rows, not from a cache.
    const { plaintext } = await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext });
    expect(Buffer.from(plaintext, "base64").toString()).toBe("before the rotation");
  });

  it("re-seals CA private keys under a fresh certificate key: the CA keeps signing, the old key is gone", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Certs", type: "cert-manager" } as never);
    const rootCa = { projectId: project.id, type: "root" as const, commonName: "Acme Root", keyAlgorithm: "EC_prime256v1" as const, ttlDays: 365 };
    const { ca: root } = await w.sr.certificateAuthorities.create(w.admin, { ...rootCa, name: "root" });
    const oldCertKey = project.kmsCertificateKeyId;

    const report = await rotateProjectDataKey(w.sr.context, project.id, {
      sleep: async () => {
        // Mid-rotation, the root CA (sealed under the old key) signs an intermediate.
        w.clock.advance(1000);
        await w.sr.certificateAuthorities.create(w.admin, { ...rootCa, name: `mid-${w.clock.now().getTime()}`, type: "intermediate", parentCaId: root.id, commonName: "Mid", ttlDays: 30 } as never);
      },
    });
    expect(report.certificateKey).toMatchObject({ fromKeyId: oldCertKey, oldKey: "deleted" });
    expect(report.moved.certificateSecrets).toBeGreaterThanOrEqual(1);
    expect(await w.storage.tables.kmsKeys.get(oldCertKey)).toBeUndefined();
    expect((await w.storage.tables.projects.get(project.id))!.kmsCertificateKeyId).toBe(report.certificateKey.toKeyId);
    w.clock.advance(1000);
    const { ca: after } = await w.sr.certificateAuthorities.create(w.admin, { ...rootCa, name: "after", type: "intermediate", parentCaId: root.id, commonName: "After", ttlDays: 30 } as never);
    expect(after).toMatchObject({ status: "active", parentCaId: root.id });
  });

  it("keeps an organization key the project was created on, and rotates onto a key of the project's own", async () => {
    const orgKey = (await w.storage.tables.kmsKeys.find({ orgId: w.orgId, projectId: null }))[0];
    const { project } = await w.sr.projects.create(w.admin, { projectName: "On org key", kmsKeyId: orgKey.id } as never);
    await w.sr.secrets.create(w.admin, { ...at(project.id), secretName: "X", secretValue: "x" });
    const report = await rotateProjectDataKey(w.sr.context, project.id, { sleep: async () => {} });
    expect(report.oldKey).toBe("kept");
    expect(await w.storage.tables.kmsKeys.get(orgKey.id)).toBeDefined();
    expect((await w.storage.tables.kmsKeys.get(report.toKeyId))!.projectId).toBe(project.id);
    expect((await listed(w.admin, project.id)).X).toBe("x");
    await allUnder(project.id, report.toKeyId);
  });
});
