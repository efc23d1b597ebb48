import { createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shortHmac } from "../../src/crypto/short-hmac.js";

/** What shortHmac must equal, byte for byte: stored blind indexes were made with createHmac. */
const reference = (key: Buffer, text: string, bytes: number): string => createHmac("sha256", key).update(text).digest("hex").slice(0, 2 * bytes);

// Text around the one-block bound (55 bytes), ASCII and not, and lone surrogates (encoded as U+FFFD by both).
const texts = fc.oneof(
  fc.string({ unit: "binary-ascii", maxLength: 70 }),
  fc.string({ unit: "grapheme-ascii", minLength: 50, maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.string({ unit: fc.constantFrom("A", "_", "é", "€", "😀", "\u0000", "\u007f", "\u0080", "\ud800"), maxLength: 60 }),
);

describe("shortHmac", () => {
  it("property: equals createHmac's HMAC-SHA256 for any key, text and length", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 100 }), fc.integer({ min: 1, max: 32 }), fc.array(texts, { maxLength: 8 }), (key, bytes, list) => {
        const hmac = shortHmac(Buffer.from(key), bytes);
        // writeHex: every digest at its place in one buffer, around bytes that stay as they were.
        const target = Buffer.alloc(1 + list.length * (2 * bytes + 1), "|");
        list.forEach((text, i) => hmac.writeHex(text, target, 1 + i * (2 * bytes + 1)));
        for (const text of list) expect(hmac.hex(text)).toBe(reference(Buffer.from(key), text, bytes));
        expect(target.toString("latin1")).toBe(`|${list.map((text) => `${reference(Buffer.from(key), text, bytes)}|`).join("")}`);
      }),
      { numRuns: 500 },
    );
  });

  it("equals createHmac at every length around the block bound, with a blind-index key", () => {
    const key = randomBytes(32);
    const hmac = shortHmac(key, 16);
    for (let length = 0; length <= 80; length++) {
      for (const unit of ["S", "\u007f", "é"]) {
        const text = unit.repeat(length);
        expect(hmac.hex(text), `${length} × ${JSON.stringify(unit)}`).toBe(reference(key, text, 16));
      }
    }
    // Known answer (RFC 4231 test case 2): key "Jefe".
    expect(shortHmac(Buffer.from("Jefe")).hex("what do ya want for nothing?")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("refuses a digest length outside 1..32 bytes", () => {
    expect(() => shortHmac(randomBytes(32), 0)).toThrow(RangeError);
    expect(() => shortHmac(randomBytes(32), 33)).toThrow(RangeError);
  });
});
