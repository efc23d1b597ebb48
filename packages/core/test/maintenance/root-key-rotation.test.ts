import { expect, it } from "vitest";
import { createTestWorld, forEachStore } from "@strongroom/core/testing";
import { generateRootKey, parseRootKey, RootKeyMismatchError, RootKeyNotRecognizedError, rotateRootKey } from "@strongroom/core/maintenance";
import { createStrongroom } from "../../src/strongroom.js";
import type { StrongroomStorage } from "../../src/entries/storage.js";
import type { ManualClock } from "../../src/kernel/clock.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const at = (projectId: string) => ({ workspaceId: projectId, environment: "dev", secretPath: "/" }) as never;

/** A second instance over the same store, as a restarted node would be; never closed (it would close the shared store). */
const restart = (w: { storage: StrongroomStorage; clock: ManualClock }, rootKey: string) => createStrongroom({ storage: w.storage, clock: w.clock, rootKey, log: () => {} });

forEachStore("root key rotation", (store) => {
  it("rewraps every data key under the new key in one go: the new key reads everything, the old one is refused", async () => {
    const w = await createTestWorld({ storage: await store.open() });
    try {
      for (let i = 0; i < 5; i++) await w.sr.secrets.create(w.admin, { ...(at(w.projectId) as object), secretName: `S${i}`, secretValue: `value-${i}` } as never);
      const { project: kmsProject } = await w.sr.projects.create(w.admin, { projectName: "Keys", type: "kms" } as never);
      const { key } = await w.sr.kms.createKey(w.admin, { projectId: kmsProject.id, name: "k" });
      const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("kms survives") });
      const dataKeys = await w.storage.tables.kmsKeys.count();

      const next = generateRootKey();
      const outcome = await rotateRootKey(w.storage, parseRootKey(w.rootKey), parseRootKey(next));
      expect(outcome).toEqual({ status: "rotated", rewrapped: { kms_keys: dataKeys } });

      const after = await restart(w, next);
      const admin = await after.authenticate(w.adminToken);
      const { secrets } = await after.secrets.list(admin, at(w.projectId));
      expect(secrets.map((s: { secretKey: string; secretValue: string }) => [s.secretKey, s.secretValue]).sort()).toEqual(
        [0, 1, 2, 3, 4].map((i) => [`S${i}`, `value-${i}`]),
      );
      const { plaintext } = await after.kms.decrypt(admin, { keyId: key.id, ciphertext });
      expect(Buffer.from(plaintext, "base64").toString()).toBe("kms survives");

      await expect(restart(w, w.rootKey)).rejects.toBeInstanceOf(RootKeyMismatchError);
      await expect(restart(w, w.rootKey)).rejects.toThrow(/rotate-root-key/);
      // A second run (say, after a crash between the commit and installing the key) changes nothing.
      expect(await rotateRootKey(w.storage, parseRootKey(w.rootKey), parseRootKey(next))).toEqual({ status: "already-rotated" });
      await expect(rotateRootKey(w.storage, parseRootKey(generateRootKey()), parseRootKey(generateRootKey()))).rejects.toBeInstanceOf(
        RootKeyNotRecognizedError,
      );
    } finally {
      await w.close();
    }
  });

  it("changes nothing when a value fails to open half-way: the old key keeps working", async () => {
    const w = await createTestWorld({ storage: await store.open() });
    try {
      await w.sr.secrets.create(w.admin, { ...(at(w.projectId) as object), secretName: "KEPT", secretValue: "kept" } as never);
      const rows = await w.storage.tables.kmsKeys.find({}, { orderBy: [["id", "asc"]] });
      expect(rows.length).toBeGreaterThan(2);
      const before = rows.map((r) => r.wrappedKey);
      // The last data key in the rotation's order is damaged: every earlier one was already rewrapped when it fails.
      const last = rows[rows.length - 1];
      const damaged = await createTestWorld();
      const foreign = (await damaged.storage.tables.kmsKeys.find())[0].wrappedKey;
      await damaged.close();
      await w.storage.tables.kmsKeys.update({ id: last.id }, { wrappedKey: foreign });

      await expect(rotateRootKey(w.storage, parseRootKey(w.rootKey), parseRootKey(generateRootKey()))).rejects.toThrow();
      const after = await w.storage.tables.kmsKeys.find({}, { orderBy: [["id", "asc"]] });
      expect(after.slice(0, -1).map((r) => r.wrappedKey)).toEqual(before.slice(0, -1));

      await w.storage.tables.kmsKeys.update({ id: last.id }, { wrappedKey: before[before.length - 1] });
      const again = await restart(w, w.rootKey);
      const { secret } = await again.secrets.get(await again.authenticate(w.adminToken), { ...(at(w.projectId) as object), secretName: "KEPT" } as never);
      expect(secret.secretValue).toBe("kept");
    } finally {
      await w.close();
    }
  });
});
