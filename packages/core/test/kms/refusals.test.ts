import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import type { KmsKey } from "@strongroom/core";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const secret = "the launch code is 0000";

/** Every refusal says why, changes nothing, and shows nothing of the key or the data. */
forEachStore("KMS refusals", (store) => {
  let w: TestWorld;
  let aes: KmsKey;
  let other: KmsKey;
  let signer: KmsKey;
  let ciphertext: string;

  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), projectType: "kms" });
    const create = async (name: string, body: object) => (await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name, ...body })).key;
    aes = await create("vault", {});
    other = await create("other-vault", {});
    signer = await create("signer", { keyUsage: "sign-verify", algorithm: "ECC_NIST_P256" });
    ({ ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: aes.id, plaintext: b64(secret) }));
  });
  afterAll(() => w?.close());

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.unreachable("should have been refused"),
      (error: { code: string; message: string }) => ({ code: error.code, message: error.message }),
    );

  it("refuses a tampered ciphertext, another key's and garbage alike, with one message", async () => {
    const bytes = Buffer.from(ciphertext, "base64");
    const altered = [
      ...[5, 20, bytes.length - 1].map((at) => {
        const copy = Buffer.from(bytes);
        copy[at] ^= 1;
        return copy.toString("base64");
      }),
      bytes.subarray(0, bytes.length - 1).toString("base64"),
      b64("not a ciphertext at all, just text"),
      Buffer.concat([bytes.subarray(0, 1), Buffer.from([0, 0, 0, 9]), bytes.subarray(5)]).toString("base64"),
    ];
    for (const attempt of altered) {
      expect(await refusal(w.sr.kms.decrypt(w.admin, { keyId: aes.id, ciphertext: attempt }))).toEqual({
        code: "BadRequest",
        message: "The ciphertext could not be decrypted with this key",
      });
    }
    const elsewhere = await refusal(w.sr.kms.decrypt(w.admin, { keyId: other.id, ciphertext }));
    expect(elsewhere).toEqual({ code: "BadRequest", message: "The ciphertext could not be decrypted with this key" });
    expect(JSON.stringify(elsewhere)).not.toContain("launch");
  });

  it("refuses every operation with a disabled key until it is enabled again", async () => {
    const { key } = await w.sr.kms.updateKey(w.admin, { keyId: aes.id, isDisabled: true });
    expect(key.isDisabled).toBe(true);
    const disabled = { code: "BadRequest", message: "The KMS key 'vault' is disabled" };
    expect(await refusal(w.sr.kms.encrypt(w.admin, { keyId: aes.id, plaintext: b64("x") }))).toEqual(disabled);
    expect(await refusal(w.sr.kms.decrypt(w.admin, { keyId: aes.id, ciphertext }))).toEqual(disabled);
    expect(await refusal(w.sr.kms.rotateKey(w.admin, { keyId: aes.id }))).toEqual(disabled);
    await w.sr.kms.updateKey(w.admin, { keyId: signer.id, isDisabled: true });
    const signerDisabled = { code: "BadRequest", message: "The KMS key 'signer' is disabled" };
    const signing = { keyId: signer.id, data: b64("x"), signingAlgorithm: "ECDSA_SHA_256" } as const;
    expect(await refusal(w.sr.kms.sign(w.admin, signing))).toEqual(signerDisabled);
    expect(await refusal(w.sr.kms.verify(w.admin, { ...signing, signature: b64("sig") }))).toEqual(signerDisabled);
    expect(await refusal(w.sr.kms.publicKey(w.admin, { keyId: signer.id }))).toEqual(signerDisabled);
    expect(await refusal(w.sr.kms.signingAlgorithms(w.admin, { keyId: signer.id }))).toEqual(signerDisabled);

    await w.sr.kms.updateKey(w.admin, { keyId: aes.id, isDisabled: false });
    await w.sr.kms.updateKey(w.admin, { keyId: signer.id, isDisabled: false });
    expect(Buffer.from((await w.sr.kms.decrypt(w.admin, { keyId: aes.id, ciphertext })).plaintext, "base64").toString()).toBe(secret);
  });

  it("refuses to use a key for another usage, or a signing algorithm of another key type", async () => {
    const data = b64("payload");
    expect(await refusal(w.sr.kms.sign(w.admin, { keyId: aes.id, data, signingAlgorithm: "ECDSA_SHA_256" }))).toEqual({
      code: "BadRequest",
      message: "The KMS key 'vault' is for encrypt-decrypt, not sign-verify",
    });
    expect((await refusal(w.sr.kms.encrypt(w.admin, { keyId: signer.id, plaintext: data }))).message).toBe(
      "The KMS key 'signer' is for sign-verify, not encrypt-decrypt",
    );
    expect((await refusal(w.sr.kms.generateMac(w.admin, { keyId: aes.id, data }))).code).toBe("BadRequest");
    expect((await refusal(w.sr.kms.publicKey(w.admin, { keyId: aes.id }))).code).toBe("BadRequest");
    expect(await refusal(w.sr.kms.sign(w.admin, { keyId: signer.id, data, signingAlgorithm: "RSASSA_PSS_SHA_256" }))).toEqual({
      code: "BadRequest",
      message: "ECC_NIST_P256 keys cannot be used with RSASSA_PSS_SHA_256",
    });
    expect(await refusal(w.sr.kms.sign(w.admin, { keyId: signer.id, data, signingAlgorithm: "ECDSA_SHA_256", isDigest: true }))).toEqual({
      code: "BadRequest",
      message: "ECDSA_SHA_256 takes a 32-byte digest; got 7 bytes",
    });
  });

  it("refuses bad input at the schema, before touching anything", async () => {
    const invalid = async (input: object) => (await refusal(w.sr.kms.encrypt(w.admin, input as never))).code;
    expect(await invalid({ keyId: aes.id, plaintext: "not base64!" })).toBe("ValidationFailure");
    expect(await invalid({ keyId: aes.id, plaintext: Buffer.alloc(4097).toString("base64") })).toBe("ValidationFailure");
    expect((await w.sr.kms.encrypt(w.admin, { keyId: aes.id, plaintext: Buffer.alloc(4096).toString("base64") })).ciphertext).toBeTruthy();
    const create = (body: object) => refusal(w.sr.kms.createKey(w.admin, { projectId: w.projectId, ...body } as never));
    expect((await create({ name: "Not A Slug" })).code).toBe("ValidationFailure");
    expect((await create({ name: "x".repeat(33) })).code).toBe("ValidationFailure");
    expect(await create({ name: "rsa", keyUsage: "encrypt-decrypt", encryptionAlgorithm: "RSA_4096" })).toEqual({
      code: "ValidationFailure",
      message: "algorithm: Key usage encrypt-decrypt cannot use RSA_4096; valid algorithms are aes-256-gcm, aes-128-gcm",
    });
    expect(await create({ name: "vault" })).toEqual({ code: "BadRequest", message: "A KMS key named 'vault' already exists in this project" });
    expect((await refusal(w.sr.kms.updateKey(w.admin, { keyId: other.id, name: "vault" }))).message).toBe("A KMS key named 'vault' already exists in this project");
    expect((await w.sr.kms.listKeys(w.admin, { projectId: w.projectId } as never)).totalCount).toBe(3);
  });

  it("answers 400 for keys in a project of another type, 404 for keys nobody may know of", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Secrets", type: "secret-manager" } as never);
    expect(await refusal(w.sr.kms.createKey(w.admin, { projectId: project.id, name: "k" }))).toEqual({
      code: "BadRequest",
      message: "KMS keys live in kms projects; this project's type is secret-manager",
    });
    expect((await refusal(w.sr.kms.listKeys(w.admin, { projectId: project.id } as never))).code).toBe("BadRequest");
    expect((await refusal(w.sr.kms.getKey(w.admin, { keyId: "00000000-0000-4000-8000-000000000000" }))).code).toBe("NotFound");
    expect((await refusal(w.sr.kms.getKeyByName(w.admin, { projectId: w.projectId, keyName: "nope" }))).code).toBe("NotFound");
  });

  it("deletes a key with its material: what it encrypted is gone for good", async () => {
    const { key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "short-lived" });
    const made = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("bye") });
    expect((await w.sr.kms.deleteKey(w.admin, { keyId: key.id })).key).toMatchObject({ id: key.id, name: "short-lived" });
    expect((await refusal(w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext: made.ciphertext }))).code).toBe("NotFound");
    expect(await w.storage.tables.cmekKeyVersions.count({ keyId: key.id })).toBe(0);
  });
});
