import { createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decryptWith, encryptWith, versionOf } from "../../src/kms/algorithms/aes.js";
import { generateMac, macMatches } from "../../src/kms/algorithms/mac.js";

const key = randomBytes(32);
const keyId = "6f1d7a4e-2c1b-4b8e-9a7d-0c3e5f2a1b9d";

describe("AES-GCM under a key version", () => {
  it("decrypts what it encrypted, names the version, and refuses any altered byte", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), fc.integer({ min: 1, max: 1000 }), fc.nat(), (plaintext, version, at) => {
        const ciphertext = encryptWith(key, keyId, version, Buffer.from(plaintext));
        expect(versionOf(ciphertext)).toBe(version);
        expect(decryptWith(key, keyId, ciphertext)).toEqual(Buffer.from(plaintext));
        const altered = Buffer.from(ciphertext);
        altered[at % altered.length] ^= 1 << at % 8;
        expect(decryptWith(key, keyId, altered)).toBeUndefined();
      }),
    );
  });

  it("refuses a ciphertext under another key id or another key", () => {
    const ciphertext = encryptWith(key, keyId, 1, Buffer.from("bound to its key"));
    expect(decryptWith(key, "another-key-id", ciphertext)).toBeUndefined();
    expect(decryptWith(randomBytes(32), keyId, ciphertext)).toBeUndefined();
  });
});

describe("HMAC", () => {
  it("is node:crypto's HMAC, and any other MAC of the same length or not fails", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom("sha256", "sha384", "sha512") as fc.Arbitrary<"sha256" | "sha384" | "sha512">, fc.uint8Array({ maxLength: 80 }), (data, hash, other) => {
        const mac = generateMac(hash, key, Buffer.from(data));
        expect(mac).toEqual(createHmac(hash, key).update(data).digest());
        expect(macMatches(hash, key, Buffer.from(data), mac)).toBe(true);
        if (!Buffer.from(other).equals(mac)) expect(macMatches(hash, key, Buffer.from(data), Buffer.from(other))).toBe(false);
      }),
    );
  });
});
