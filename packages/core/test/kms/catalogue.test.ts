import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  digestLengthOf,
  KEY_ALGORITHMS,
  KEY_SPECS,
  signingAlgorithmsOf,
  signingMismatch,
  SIGNING_ALGORITHMS,
  usageMismatch,
} from "../../src/kms/algorithms/catalogue.js";
import { ENVELOPE_OVERHEAD, packEnvelope, unpackEnvelope } from "../../src/kms/algorithms/envelope.js";
import { chooseAlgorithm } from "../../src/kms/keys/choose-algorithm.js";
import { nextRotationAt } from "../../src/kms/keys/rotation-schedule.js";
import { base64Bytes, isBase64 } from "../../src/kms/use/base64.js";

describe("the KMS algorithm catalogue", () => {
  it.each([
    ["encrypt-decrypt", "aes-256-gcm", true],
    ["encrypt-decrypt", "aes-128-gcm", true],
    ["encrypt-decrypt", "RSA_4096", false],
    ["sign-verify", "RSA_2048", true],
    ["sign-verify", "ECC_NIST_P384", true],
    ["sign-verify", "ECC_NIST_EDWARDS25519", true],
    ["sign-verify", "HMAC_SHA_256", false],
    ["generate-verify-mac", "HMAC_SHA_512", true],
    ["generate-verify-mac", "aes-128-gcm", false],
  ] as const)("a %s key %s use %s", (usage, algorithm, fits) => {
    expect(usageMismatch(usage, algorithm) === undefined).toBe(fits);
  });

  it("names the valid algorithms when a usage and an algorithm do not fit", () => {
    expect(usageMismatch("generate-verify-mac", "RSA_4096")).toBe(
      "Key usage generate-verify-mac cannot use RSA_4096; valid algorithms are HMAC_SHA_256, HMAC_SHA_384, HMAC_SHA_512",
    );
  });

  it.each([
    [{ keyUsage: "encrypt-decrypt" }, { algorithm: "aes-256-gcm" }],
    [{ keyUsage: "encrypt-decrypt", encryptionAlgorithm: "aes-128-gcm" }, { algorithm: "aes-128-gcm" }],
    [{ keyUsage: "sign-verify", algorithm: "ECC_NIST_P256" }, { algorithm: "ECC_NIST_P256" }],
    [{ keyUsage: "sign-verify", algorithm: "RSA_2048", encryptionAlgorithm: "RSA_2048" }, { algorithm: "RSA_2048" }],
    [{ keyUsage: "sign-verify" }, { problem: "Key usage sign-verify needs an algorithm" }],
    [{ keyUsage: "encrypt-decrypt", algorithm: "aes-128-gcm", encryptionAlgorithm: "aes-256-gcm" }, { problem: "algorithm and encryptionAlgorithm name different algorithms" }],
  ] as const)("chooses the algorithm a create request asks for: %j", (choice, expected) => {
    expect(chooseAlgorithm(choice)).toEqual(expected);
  });

  it.each([
    ["RSA_3072", ["RSASSA_PSS_SHA_512", "RSASSA_PSS_SHA_384", "RSASSA_PSS_SHA_256", "RSASSA_PKCS1_V1_5_SHA_512", "RSASSA_PKCS1_V1_5_SHA_384", "RSASSA_PKCS1_V1_5_SHA_256"]],
    ["ECC_NIST_P256", ["ECDSA_SHA_512", "ECDSA_SHA_384", "ECDSA_SHA_256"]],
    ["ECC_NIST_EDWARDS25519", ["ED25519_SHA_512", "ED25519_PH_SHA_512"]],
    ["aes-256-gcm", []],
    ["HMAC_SHA_256", []],
  ] as const)("gives %s the signing algorithms %j", (algorithm, expected) => {
    expect(signingAlgorithmsOf(algorithm)).toEqual(expected);
  });

  it.each([
    ["RSA_2048", "ECDSA_SHA_256", false, "RSA_2048 keys cannot be used with ECDSA_SHA_256"],
    ["ECC_NIST_P256", "RSASSA_PSS_SHA_256", false, "ECC_NIST_P256 keys cannot be used with RSASSA_PSS_SHA_256"],
    ["RSA_2048", "RSASSA_PSS_SHA_256", true, "RSASSA-PSS does not support digested input"],
    ["ECC_NIST_EDWARDS25519", "ED25519_SHA_512", true, "ED25519_SHA_512 does not take a digest; use ED25519_PH_SHA_512 for pre-hashed input"],
    ["ECC_NIST_EDWARDS25519", "ED25519_PH_SHA_512", false, "ED25519_PH_SHA_512 signs a SHA-512 digest: send the digest with isDigest true"],
    ["RSA_2048", "RSASSA_PKCS1_V1_5_SHA_384", true, undefined],
    ["ECC_NIST_P384", "ECDSA_SHA_256", true, undefined],
    ["ECC_NIST_EDWARDS25519", "ED25519_PH_SHA_512", true, undefined],
  ] as const)("%s with %s (digest: %s): %s", (key, signing, isDigest, problem) => {
    expect(signingMismatch(key, signing, isDigest)).toBe(problem);
  });

  it("pairs every signing algorithm with exactly the key kinds of its family, and a digest length", () => {
    for (const signing of SIGNING_ALGORITHMS) {
      const keys = KEY_ALGORITHMS.filter((a) => signingAlgorithmsOf(a).includes(signing));
      expect(keys.length, signing).toBeGreaterThan(0);
      expect([32, 48, 64]).toContain(digestLengthOf(signing));
    }
    expect(KEY_ALGORITHMS.filter((a) => KEY_SPECS[a].usage === "sign-verify").every((a) => signingAlgorithmsOf(a).length > 0)).toBe(true);
  });

  it("schedules the next rotation a whole number of days on, or not at all", () => {
    const from = new Date("2026-03-01T00:00:00.000Z");
    expect(nextRotationAt(from, 30)).toBe("2026-03-31T00:00:00.000Z");
    expect(nextRotationAt(from, null)).toBeNull();
    expect(nextRotationAt(from, undefined)).toBeNull();
  });
});

describe("base64 input", () => {
  it("accepts what Buffer encodes, padded or not, and counts its bytes without decoding", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, unpadded) => {
        let text = Buffer.from(bytes).toString("base64");
        if (unpadded) text = text.replace(/=+$/, "");
        expect(isBase64(text)).toBe(true);
        expect(base64Bytes(text)).toBe(bytes.length);
      }),
    );
  });

  it.each(["a", "abcde", "ab=c", "a b=", "YWJj!", "YQ===", "-_-_"])("refuses %j", (text) => {
    expect(isBase64(text)).toBe(false);
  });
});

describe("the ciphertext envelope", () => {
  it("carries the key version and its parts through packing", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 32 - 1 }), fc.uint8Array({ minLength: 12, maxLength: 12 }), fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 16, maxLength: 16 }), (version, iv, ciphertext, tag) => {
        const packed = packEnvelope({ version, iv: Buffer.from(iv), ciphertext: Buffer.from(ciphertext), tag: Buffer.from(tag) });
        expect(packed.length).toBe(ciphertext.length + ENVELOPE_OVERHEAD);
        const unpacked = unpackEnvelope(packed)!;
        expect(unpacked.version).toBe(version);
        expect([...unpacked.iv, ...unpacked.ciphertext, ...unpacked.tag]).toEqual([...iv, ...ciphertext, ...tag]);
      }),
    );
  });

  it("refuses bytes that are too short, of another format, or of version 0", () => {
    expect(unpackEnvelope(Buffer.alloc(ENVELOPE_OVERHEAD - 1, 1))).toBeUndefined();
    const valid = packEnvelope({ version: 3, iv: Buffer.alloc(12), ciphertext: Buffer.alloc(4), tag: Buffer.alloc(16) });
    expect(unpackEnvelope(Buffer.concat([Buffer.from([2]), valid.subarray(1)]))).toBeUndefined();
    expect(unpackEnvelope(Buffer.concat([valid.subarray(0, 1), Buffer.alloc(4), valid.subarray(5)]))).toBeUndefined();
  });
});
