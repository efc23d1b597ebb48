/**
 * A DER writer. Every value here is definite-length and built bottom-up, so writing DER is only
 * tag, length, contents; the hard part of ASN.1 is reading untrusted input, which
 * der-reader.ts leaves to node-forge.
 *
 * Elements are first described as a tree of small nodes that know their encoded size, then
 * written in one pass into one Buffer. A certificate has some fifty elements; allocating a
 * Buffer per element cost more than the rest of the X.509 work put together.
 */

/** An element still to be written. */
export interface DerNode {
  readonly tag: number;
  readonly contentLength: number;
  /** Tag, length and contents. */
  readonly size: number;
  readonly parts: readonly Der[];
}

/** A node, or bytes written verbatim: an already-encoded element, or a primitive's contents. */
export type Der = DerNode | Uint8Array;

/** Universal tags (X.680 §8.4) with the constructed bit where it belongs. */
const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;
const CONTEXT = 0x80;
const CONSTRUCTED = 0x20;

/** Octets the long-form length needs after its first byte (X.690 §8.1.3.5); 0 for the short form. */
const longLengthOctets = (length: number): number => (length < 0x80 ? 0 : length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4);

export const derLength = (part: Der): number => (part instanceof Uint8Array ? part.length : part.size);

export function tlv(tag: number, parts: readonly Der[]): DerNode {
  let contentLength = 0;
  for (const part of parts) contentLength += derLength(part);
  return { tag, contentLength, size: 2 + longLengthOctets(contentLength) + contentLength, parts };
}

function writeInto(out: Buffer, at: number, part: Der): number {
  if (part instanceof Uint8Array) {
    out.set(part, at);
    return at + part.length;
  }
  out[at++] = part.tag;
  const extra = longLengthOctets(part.contentLength);
  if (extra === 0) out[at++] = part.contentLength;
  else {
    out[at++] = 0x80 | extra;
    out.writeUIntBE(part.contentLength, at, extra);
    at += extra;
  }
  for (const child of part.parts) at = writeInto(out, at, child);
  return at;
}

/** The encoding of `part`; bytes are returned as they are. */
export function toDer(part: Der): Buffer {
  if (part instanceof Uint8Array) return Buffer.isBuffer(part) ? part : Buffer.from(part);
  const out = Buffer.allocUnsafe(part.size);
  writeInto(out, 0, part);
  return out;
}

/** Several elements encoded back to back, e.g. a run of extensions to be placed in a SEQUENCE later. */
export function concatDer(parts: readonly Der[]): Buffer {
  let size = 0;
  for (const part of parts) size += derLength(part);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of parts) at = writeInto(out, at, part);
  return out;
}

function oidContents(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const bytes: number[] = [];
  const base128 = (value: number) => {
    const group = [value & 0x7f];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) group.unshift(0x80 | (rest & 0x7f));
    bytes.push(...group);
  };
  base128(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) base128(arc);
  return Buffer.from(bytes);
}

// A handful of OIDs recur in every certificate; each is encoded once.
const oidCache = new Map<string, Buffer>();
const UNUSED_BITS = Array.from({ length: 8 }, (_, n) => Buffer.of(n));
const TRUE = toDer(tlv(TAG.BOOLEAN, [Buffer.of(0xff)]));
const FALSE = toDer(tlv(TAG.BOOLEAN, [Buffer.of(0)]));
const NULL = toDer(tlv(TAG.NULL, []));

const digits2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
function timeText(date: Date, fullYear: boolean): string {
  const year = date.getUTCFullYear();
  const yearText = fullYear ? String(year).padStart(4, "0") : digits2(year % 100);
  return `${yearText}${digits2(date.getUTCMonth() + 1)}${digits2(date.getUTCDate())}${digits2(date.getUTCHours())}${digits2(date.getUTCMinutes())}${digits2(date.getUTCSeconds())}Z`;
}

export const der = {
  sequence: (items: readonly Der[]): DerNode => tlv(TAG.SEQUENCE, items),
  set: (items: readonly Der[]): DerNode => tlv(TAG.SET, items),
  oid(dotted: string): Buffer {
    let encoded = oidCache.get(dotted);
    if (!encoded) {
      encoded = toDer(tlv(TAG.OID, [oidContents(dotted)]));
      if (oidCache.size < 1024) oidCache.set(dotted, encoded);
    }
    return encoded;
  },
  /** `bytes` is the two's-complement big-endian content; callers keep it minimal and positive. */
  integer: (bytes: Uint8Array): DerNode => tlv(TAG.INTEGER, [bytes]),
  /** A non-negative number below 2^31. */
  smallInteger(value: number): DerNode {
    const bytes: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
    if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
    return tlv(TAG.INTEGER, [Buffer.from(bytes)]);
  },
  boolean: (value: boolean): Buffer => (value ? TRUE : FALSE),
  null: (): Buffer => NULL,
  octetString: (contents: Der): DerNode => tlv(TAG.OCTET_STRING, [contents]),
  bitString: (contents: Der, unusedBits = 0): DerNode => tlv(TAG.BIT_STRING, [UNUSED_BITS[unusedBits]!, contents]),
  utf8String: (text: string): DerNode => tlv(TAG.UTF8_STRING, [Buffer.from(text, "utf8")]),
  printableString: (text: string): DerNode => tlv(TAG.PRINTABLE_STRING, [Buffer.from(text, "latin1")]),
  ia5String: (text: string): DerNode => tlv(TAG.IA5_STRING, [Buffer.from(text, "latin1")]),
  /** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050; whole seconds, Zulu. */
  time: (date: Date): DerNode =>
    date.getUTCFullYear() < 2050
      ? tlv(TAG.UTC_TIME, [Buffer.from(timeText(date, false), "latin1")])
      : tlv(TAG.GENERALIZED_TIME, [Buffer.from(timeText(date, true), "latin1")]),
  explicit: (tag: number, inner: Der): DerNode => tlv(CONTEXT | CONSTRUCTED | tag, [inner]),
  implicitPrimitive: (tag: number, bytes: Uint8Array): DerNode => tlv(CONTEXT | tag, [bytes]),
};
