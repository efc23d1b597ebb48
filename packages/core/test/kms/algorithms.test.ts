import { createDecipheriv, createHash, createHmac, createPublicKey } from "node:crypto";
import { ed25519ph } from "@noble/curves/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestWorld, type TestWorld } from "@strongroom/core/testing";
import { KEY_SPECS, SIGNING_SPECS, signingAlgorithmsOf, signingMismatch, type KeyAlgorithm, type SigningAlgorithm } from "../../src/kms/algorithms/catalogue.js";
import { cmekRepository } from "../../src/kms/keys/repository.js";
import { scratch, type Scratch } from "./openssl.js";

/**
 * Every algorithm end to end through the embedded API: signatures checked by openssl with the
 * key's published public key, MACs and ciphertexts checked against node:crypto with the key's
 * material (opened here through the instance, as only a test may).
 */
const message = Buffer.from("The quick brown fox jumps over the lazy dog, and is signed for it.");
const b64 = (bytes: Buffer) => bytes.toString("base64");

let w: TestWorld;
let files: Scratch;
beforeAll(async () => {
  w = await createTestWorld({ projectType: "kms" });
  files = await scratch();
});
afterAll(async () => {
  await files?.dispose();
  await w?.close();
});

async function createKey(algorithm: KeyAlgorithm) {
  const usage = KEY_SPECS[algorithm].usage;
  const name = algorithm.toLowerCase().replace(/_/g, "-");
  return (await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name, keyUsage: usage, encryptionAlgorithm: algorithm })).key;
}

/** The version's raw material, as the instance holds it. */
async function materialOf(keyId: string, version: number): Promise<Buffer> {
  const repo = w.sr.context.repo(cmekRepository);
  return repo.open((await repo.version(keyId, version))!);
}

/** openssl's verdict on a signature, over the message (every case) and, for digest signatures, over the digest too. */
async function opensslVerifies(signing: SigningAlgorithm, publicKeyFile: string, signature: Buffer, digest: Buffer | undefined): Promise<boolean> {
  const spec = SIGNING_SPECS[signing];
  const sig = await files.write("sig.bin", signature);
  const msg = await files.write("message.bin", message);
  if (spec.family === "ed25519") return files.succeeds("pkeyutl", "-verify", "-pubin", "-inkey", publicKeyFile, "-rawin", "-in", msg, "-sigfile", sig);
  const pss = spec.family === "rsa" && spec.padding === "pss" ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:-1"] : [];
  const overMessage = await files.succeeds("dgst", `-${spec.hash}`, ...pss, "-verify", publicKeyFile, "-signature", sig, msg);
  if (!digest) return overMessage;
  const dgst = await files.write("digest.bin", digest);
  const overDigest = await files.succeeds("pkeyutl", "-verify", "-pubin", "-inkey", publicKeyFile, "-in", dgst, "-sigfile", sig, "-pkeyopt", `digest:${spec.hash}`);
  return overMessage && overDigest;
}

describe("encrypt-decrypt keys", () => {
  it.each(["aes-256-gcm", "aes-128-gcm"] as const)("%s: round trips, and the ciphertext is plain AES-GCM under the key's material", async (algorithm) => {
    const key = await createKey(algorithm);
    for (const plaintext of [Buffer.alloc(0), message, Buffer.alloc(4096, 7)]) {
      const { ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64(plaintext) });
      expect(Buffer.from((await w.sr.kms.decrypt(w.admin, { keyId: key.id, ciphertext })).plaintext, "base64")).toEqual(plaintext);

      const bytes = Buffer.from(ciphertext, "base64");
      const material = await materialOf(key.id, 1);
      expect(material.length).toBe(algorithm === "aes-256-gcm" ? 32 : 16);
      const decipher = createDecipheriv(algorithm, material, bytes.subarray(5, 17));
      decipher.setAAD(Buffer.concat([bytes.subarray(0, 5), Buffer.from(key.id)]));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      expect(Buffer.concat([decipher.update(bytes.subarray(17, bytes.length - 16)), decipher.final()])).toEqual(plaintext);
    }
  });

  it("encrypts the same plaintext differently every time", async () => {
    const { key } = await w.sr.kms.getKeyByName(w.admin, { projectId: w.projectId, keyName: "aes-256-gcm" });
    const a = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64(message) });
    const b = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64(message) });
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });
});

describe("generate-verify-mac keys", () => {
  it.each([
    ["HMAC_SHA_256", "sha256", 32],
    ["HMAC_SHA_384", "sha384", 48],
    ["HMAC_SHA_512", "sha512", 64],
  ] as const)("%s: MACs are node:crypto's HMAC-%s of the key's material, and verify", async (algorithm, hash, bytes) => {
    const key = await createKey(algorithm);
    const { mac, macAlgorithm, keyId } = await w.sr.kms.generateMac(w.admin, { keyId: key.id, data: b64(message) });
    expect({ macAlgorithm, keyId }).toEqual({ macAlgorithm: algorithm, keyId: key.id });
    const material = await materialOf(key.id, 1);
    expect(material.length).toBe(bytes);
    expect(mac).toBe(createHmac(hash, material).update(message).digest("base64"));
    expect((await w.sr.kms.verifyMac(w.admin, { keyId: key.id, data: b64(message), mac })).macValid).toBe(true);

    const flipped = Buffer.from(mac, "base64");
    flipped[0] ^= 1;
    const cases = [
      { data: b64(message), mac: b64(flipped) },
      { data: b64(Buffer.from("another message")), mac },
      { data: b64(message), mac: b64(Buffer.from(mac, "base64").subarray(0, 16)) },
    ];
    for (const attempt of cases) expect((await w.sr.kms.verifyMac(w.admin, { keyId: key.id, ...attempt })).macValid).toBe(false);
  });
});

const signingKeys = Object.keys(KEY_SPECS).filter((a) => KEY_SPECS[a as KeyAlgorithm].usage === "sign-verify") as KeyAlgorithm[];

describe("sign-verify keys", () => {
  it.each(signingKeys)("%s: every signing algorithm signs messages and digests that verify here and in openssl", async (algorithm) => {
    const key = await createKey(algorithm);
    const { publicKey } = await w.sr.kms.publicKey(w.admin, { keyId: key.id });
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    expect(createPublicKey(publicKey).asymmetricKeyType).toBe(KEY_SPECS[algorithm].kind);
    const pem = await files.write(`${key.name}.pem`, publicKey);
    const offered = (await w.sr.kms.signingAlgorithms(w.admin, { keyId: key.id })).signingAlgorithms;
    expect(offered).toEqual(signingAlgorithmsOf(algorithm));

    for (const signing of offered) {
      for (const isDigest of [false, true]) {
        if (signingMismatch(algorithm, signing, isDigest)) continue;
        const spec = SIGNING_SPECS[signing];
        const digest = isDigest ? createHash(spec.family === "ed25519" ? "sha512" : spec.hash).update(message).digest() : undefined;
        const data = b64(digest ?? message);
        const signed = await w.sr.kms.sign(w.admin, { keyId: key.id, data, signingAlgorithm: signing, isDigest });
        expect(signed).toMatchObject({ keyId: key.id, signingAlgorithm: signing });
        const signature = Buffer.from(signed.signature, "base64");
        const verdict = await w.sr.kms.verify(w.admin, { keyId: key.id, data, signature: signed.signature, signingAlgorithm: signing, isDigest });
        expect(verdict, `${signing} digest=${isDigest}`).toEqual({ signatureValid: true, keyId: key.id, signingAlgorithm: signing });

        if (signing === "ED25519_PH_SHA_512") {
          // OpenSSL 3.0 has no Ed25519ph; noble's own Ed25519ph, hashing the message itself, is the judge.
          const raw = createPublicKey(publicKey).export({ format: "jwk" }).x!;
          expect(ed25519ph.verify(signature, message, Buffer.from(raw, "base64url"))).toBe(true);
        } else {
          expect(await opensslVerifies(signing, pem, signature, digest), `openssl: ${signing} digest=${isDigest}`).toBe(true);
        }

        const tampered = Buffer.from(signature);
        tampered[tampered.length - 1] ^= 1;
        const forged = await w.sr.kms.verify(w.admin, { keyId: key.id, data, signature: b64(tampered), signingAlgorithm: signing, isDigest });
        expect(forged.signatureValid, `tampered ${signing} digest=${isDigest}`).toBe(false);
        if (signing !== "ED25519_PH_SHA_512") expect(await opensslVerifies(signing, pem, tampered, digest), `openssl refuses a tampered ${signing}`).toBe(false);
      }
    }
  });
});
