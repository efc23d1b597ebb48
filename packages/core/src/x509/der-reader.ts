/**
 * Reading DER through node-forge's ASN.1 parser: strict DER, depth-limited, and long exercised
 * on hostile input, which certificates from scanned servers and CSRs from callers are. forge
 * models bytes as "binary strings"; callers of this module see Buffers only.
 */
import type forge from "node-forge";
import { lazyModule } from "../kernel/lazy-module.js";

export type Asn1 = forge.asn1.Asn1;

const forgeModule = lazyModule<typeof forge>("node-forge");
const asn1 = () => forgeModule().asn1;
// Tag classes and universal tags as X.690 numbers them (forge's enums hold the same values).
const UNIVERSAL = 0x00;
const CONTEXT = 0x80;
const T = { BOOLEAN: 1, INTEGER: 2, OID: 6, UTF8: 12, PRINTABLESTRING: 19, IA5STRING: 22, UTCTIME: 23, GENERALIZEDTIME: 24, BMPSTRING: 30 } as const;
const T61STRING = 20;
const UNIVERSALSTRING = 28;

const bin = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
const buf = (binary: string): Buffer => Buffer.from(binary, "latin1");

/** Re-encodes a decoded element; for DER input this reproduces the original bytes. */
export const encode = (node: Asn1): Buffer => buf(asn1().toDer(node).getBytes());

// forge's typings only expose the boolean form; the options object is what turns off its habit
// of guessing that BIT STRING contents (signatures, public keys) are nested ASN.1.
const fromDer = (bytes: string, options: object): Asn1 => (asn1().fromDer as unknown as (bytes: string, options: object) => Asn1)(bytes, options);

/** Strict DER decoding of exactly one element; throws on malformed or trailing bytes. */
export const decode = (bytes: Uint8Array): Asn1 =>
  fromDer(bin(bytes), { strict: true, parseAllBytes: true, decodeBitStrings: false });

// ---- reading decoded nodes ----

export const isContext = (node: Asn1 | undefined, tag: number): node is Asn1 =>
  node !== undefined && node.tagClass === CONTEXT && node.type === tag;

export function children(node: Asn1 | undefined, what = "ASN.1 element"): Asn1[] {
  if (!node || !Array.isArray(node.value)) throw new Error(`malformed ${what}`);
  return node.value;
}

export function contents(node: Asn1 | undefined, what = "ASN.1 element"): Buffer {
  if (!node || typeof node.value !== "string") throw new Error(`malformed ${what}`);
  return buf(node.value);
}

export function readOid(node: Asn1 | undefined): string {
  if (!node || node.tagClass !== UNIVERSAL || node.type !== T.OID) throw new Error("expected an OBJECT IDENTIFIER");
  return asn1().derToOid(node.value as string);
}

export const isBoolean = (node: Asn1 | undefined): boolean => node?.tagClass === UNIVERSAL && node.type === T.BOOLEAN;
export const isInteger = (node: Asn1 | undefined): boolean => node?.tagClass === UNIVERSAL && node.type === T.INTEGER;

export const readBoolean = (node: Asn1 | undefined): boolean => contents(node, "BOOLEAN")[0] !== 0;

/** A non-negative INTEGER small enough for a JS number (path lengths, versions). */
export function readSmallInteger(node: Asn1 | undefined): number {
  const bytes = contents(node, "INTEGER");
  if (bytes.length === 0 || bytes.length > 6 || (bytes[0]! & 0x80) !== 0) throw new Error("INTEGER out of range");
  return bytes.readUIntBE(0, bytes.length);
}

export function readTime(node: Asn1 | undefined): Date {
  if (node?.type === T.UTCTIME) return asn1().utcTimeToDate(node.value as string);
  if (node?.type === T.GENERALIZEDTIME) return asn1().generalizedTimeToDate(node.value as string);
  throw new Error("expected a UTCTime or GeneralizedTime");
}

/** BIT STRING content without the leading unused-bits count. */
export const readBitString = (node: Asn1 | undefined): Buffer => contents(node, "BIT STRING").subarray(1);

/** Text of any directory string type a certificate name may use. */
export function readString(node: Asn1): string {
  const bytes = contents(node, "string");
  switch (node.type as number) {
    case T.UTF8:
      return bytes.toString("utf8");
    case T.BMPSTRING:
      return bytes.swap16().toString("utf16le");
    case UNIVERSALSTRING:
      return String.fromCodePoint(...Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readUInt32BE(i * 4)));
    case T.PRINTABLESTRING:
    case T.IA5STRING:
    case T61STRING:
      return bytes.toString("latin1");
    default:
      return `#${encode(node).toString("hex")}`;
  }
}
