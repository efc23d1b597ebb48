import { createHash, createHmac } from "node:crypto";

/**
 * HMAC-SHA256 of short text under one fixed key, for blind indexes: the same bytes `createHmac`
 * gives (the property test in test/crypto checks it over random text), at about half its cost.
 *
 * `createHmac(...).update(text).digest()` costs 1.5–2 µs of which the two SHA-256 compressions
 * are a small part: the rest is a native object and its calls per text. Here the key's inner and
 * outer pad blocks are compressed once (their midstates kept); a text of at most 55 ASCII
 * characters then fits with its padding in one block, so its HMAC is two compressions in plain
 * JavaScript, with no allocation but the answer. Longer or non-ASCII text goes to `createHmac`.
 * The compression uses only additions, rotations and bitwise operations (no table indexed by the
 * data), so its time does not depend on the text or the key.
 */

/* prettier-ignore */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
/* prettier-ignore */
const INITIAL = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** SHA-256's compression of the block whose 16 big-endian words are `w[0..15]` (the rest of `w` is scratch), from `state` into `out`. */
function compress(w: Int32Array, state: Int32Array, out: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const w15 = w[i - 15];
    const w2 = w[i - 2];
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0];
  let b = state[1];
  let c = state[2];
  let d = state[3];
  let e = state[4];
  let f = state[5];
  let g = state[6];
  let h = state[7];
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  out[0] = (state[0] + a) | 0;
  out[1] = (state[1] + b) | 0;
  out[2] = (state[2] + c) | 0;
  out[3] = (state[3] + d) | 0;
  out[4] = (state[4] + e) | 0;
  out[5] = (state[5] + f) | 0;
  out[6] = (state[6] + g) | 0;
  out[7] = (state[7] + h) | 0;
}

/** The longest text (in bytes) that fits with SHA-256's padding (0x80, 64-bit length) in one block. */
const ONE_BLOCK = 55;

/** The ASCII codes of the hex digits. */
const HEX_DIGITS = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

/**
 * HMAC-SHA256 under a fixed key, the first `bytes` bytes of each digest in hex: `hex(text)` is
 * `createHmac("sha256", key).update(text).digest("hex").slice(0, 2 * bytes)`; `writeHex` writes
 * the same `2 * bytes` ASCII characters into a buffer (many digests into one text, no string each).
 */
export interface ShortHmac {
  hex(text: string): string;
  writeHex(text: string, target: Buffer, offset: number): void;
}

/** `bytes`: 1 to 32. */
export function shortHmac(key: Buffer, bytes = 32): ShortHmac {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 32) throw new RangeError("shortHmac: bytes must be 1..32");
  const slow = (text: string): Buffer => createHmac("sha256", key).update(text).digest();
  // HMAC's key block: the key, hashed first when longer than a block, zero-padded to 64 bytes.
  const block = Buffer.alloc(64);
  (key.length > 64 ? createHash("sha256").update(key).digest() : key).copy(block);
  const w = new Int32Array(64);
  const midstate = (pad: number): Int32Array => {
    for (let i = 0; i < 16; i++) w[i] = (block.readInt32BE(i * 4) ^ (pad * 0x01010101)) | 0;
    const state = new Int32Array(8);
    compress(w, INITIAL, state);
    return state;
  };
  const inner = midstate(0x36);
  const outer = midstate(0x5c);
  block.fill(0);
  const state = new Int32Array(8);
  const scratch = Buffer.alloc(2 * bytes);

  /** The digest into `state`, or false when the text does not fit one block as ASCII (then `slow`). */
  const fast = (text: string): boolean => {
    const length = text.length;
    if (length > ONE_BLOCK) return false;
    // The text's bytes (ASCII: one per character), then 0x80, big-endian into words, then zeros.
    let word = 0;
    let i = 0;
    for (; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) return false;
      word = (word << 8) | code;
      if ((i & 3) === 3) {
        w[i >> 2] = word;
        word = 0;
      }
    }
    word = (word << 8) | 0x80;
    for (i++; (i & 3) !== 0; i++) word <<= 8;
    w[(i >> 2) - 1] = word;
    for (let j = i >> 2; j < 15; j++) w[j] = 0;
    w[15] = (64 + length) * 8; // bits hashed: the pad block and the text
    compress(w, inner, state);
    // The outer hash's one block: the inner digest, 0x80, zeros, the bit length of pad block and digest.
    for (let j = 0; j < 8; j++) w[j] = state[j];
    w[8] = 0x80000000 | 0;
    for (let j = 9; j < 15; j++) w[j] = 0;
    w[15] = (64 + 32) * 8;
    compress(w, outer, state);
    return true;
  };

  const writeHex = (text: string, target: Buffer, offset: number): void => {
    if (!fast(text)) {
      target.write(slow(text).toString("hex", 0, bytes), offset, 2 * bytes, "latin1");
      return;
    }
    for (let n = 0; n < bytes; n++) {
      const byte = (state[n >> 2] >>> (24 - 8 * (n & 3))) & 0xff;
      target[offset + 2 * n] = HEX_DIGITS[byte >> 4];
      target[offset + 2 * n + 1] = HEX_DIGITS[byte & 15];
    }
  };
  return {
    hex(text) {
      writeHex(text, scratch, 0);
      return scratch.toString("latin1");
    },
    writeHex,
  };
}
