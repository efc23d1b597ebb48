import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { packSealed, seal } from "../../src/crypto/aead.js";
import { hmacHex } from "../../src/crypto/hash.js";
import { rewrapSecretRow, type SecretKey } from "../../src/secret-manager/rewrap.js";

const key = (): SecretKey => ({ data: randomBytes(32), blind: randomBytes(32) });
const from = key();
const to = key();
const fields = JSON.stringify(["DB_URL", "postgres://db", "a comment", []]);
const sealedUnder = (k: SecretKey, secretId = "s1") => packSealed(seal(k.data, fields, `secret:${secretId}`));

describe("rewrapping one stored secret", () => {
  const cases: { what: string; row: { sealed: string; keyHash: string }; expect: "resealed" | "reindexed" | "untouched" | "throws"; secretId?: string }[] = [
    { what: "sealed and indexed under the old key", row: { sealed: sealedUnder(from), keyHash: hmacHex(from.blind, "DB_URL") }, expect: "resealed" },
    { what: "sealed under the new key, indexed under the old (an update mid-rotation)", row: { sealed: sealedUnder(to), keyHash: hmacHex(from.blind, "DB_URL") }, expect: "reindexed" },
    { what: "already sealed and indexed under the new key", row: { sealed: sealedUnder(to), keyHash: hmacHex(to.blind, "DB_URL") }, expect: "untouched" },
    { what: "sealed under a third key", row: { sealed: sealedUnder(key()), keyHash: "x" }, expect: "throws" },
    { what: "sealed for another secret (moved ciphertext)", row: { sealed: sealedUnder(from, "s2"), keyHash: "x" }, expect: "throws" },
  ];
  for (const c of cases) {
    it(`${c.what}: ${c.expect}`, () => {
      if (c.expect === "throws") {
        expect(() => rewrapSecretRow(from, to, c.row, "s1")).toThrow(/neither the old nor the new data key/);
        return;
      }
      const out = rewrapSecretRow(from, to, c.row, "s1");
      if (c.expect === "untouched") return expect(out).toBeUndefined();
      expect(out!.keyHash).toBe(hmacHex(to.blind, "DB_URL"));
      if (c.expect === "reindexed") expect(out!.sealed).toBe(c.row.sealed);
      else {
        expect(out!.sealed).not.toBe(c.row.sealed);
        // The result is final: rewrapping it again changes nothing.
        expect(rewrapSecretRow(from, to, out!, "s1")).toBeUndefined();
      }
    });
  }
});
