/** DER encoders and decoders for the X.509 v3 extensions Strongroom writes and reads. */
import { customExtensionValueDer } from "./custom-extension-value.js";
import {
  type Asn1,
  children,
  contents,
  decode,
  isBoolean,
  isContext,
  isInteger,
  readBoolean,
  readOid,
  readSmallInteger,
} from "./der-reader.js";
import { type Der, type DerNode, der, toDer } from "./der-writer.js";
import { formatIp, parseIp } from "../net/ip.js";
import {
  EXTENDED_KEY_USAGE_OIDS,
  type ExtendedKeyUsage,
  KEY_USAGES,
  type KeyUsage,
  MANAGED_EXTENSION_OIDS as OID,
  SAN_TAGS,
  type SanType,
  type SubjectAltName,
} from "./vocabulary.js";

/** One encoded Extension: OID, the critical flag when set (DER omits a FALSE default), and the value's DER. */
export function extension(oid: string, critical: boolean, value: Der): DerNode {
  return der.sequence([der.oid(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(value)]);
}

/**
 * A profile puts the same constraints and usages on every certificate it issues, so those
 * encodings are kept and reused (the DER writer copies, never mutates, what it is given).
 */
function memoized<A extends unknown[]>(key: (...args: A) => string, build: (...args: A) => Der): (...args: A) => Buffer {
  const cache = new Map<string, Buffer>();
  return (...args) => {
    const k = key(...args);
    let encoded = cache.get(k);
    if (!encoded) {
      if (cache.size >= 512) cache.clear();
      cache.set(k, (encoded = toDer(build(...args))));
    }
    return encoded;
  };
}

/** A CA's flag is always critical (RFC 5280 §4.2.1.9); an end entity's CA:FALSE is too, so no client guesses. */
export const basicConstraintsExtension = memoized(
  (isCA: boolean, pathLength?: number) => `${isCA}/${pathLength}`,
  (isCA, pathLength) => {
    const fields = isCA ? [der.boolean(true), ...(pathLength !== undefined ? [der.smallInteger(pathLength)] : [])] : [];
    return extension(OID.basicConstraints, true, der.sequence(fields));
  },
);

/** Named bits, DER-minimal: trailing zero bits are dropped and counted as unused (X.690 §11.2.2). */
export function namedBits(bits: number[]): { bytes: Buffer; unusedBits: number } {
  if (bits.length === 0) return { bytes: Buffer.alloc(0), unusedBits: 0 };
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc((highest >> 3) + 1);
  for (const bit of bits) bytes[bit >> 3]! |= 0x80 >> (bit & 7);
  return { bytes, unusedBits: 7 - (highest & 7) };
}

export const keyUsageExtension = memoized(
  (usages: KeyUsage[]) => usages.join(),
  (usages) => {
    const { bytes, unusedBits } = namedBits(usages.map((u) => KEY_USAGES.indexOf(u)));
    return extension(OID.keyUsage, true, der.bitString(bytes, unusedBits));
  },
);

export const extendedKeyUsageExtension = memoized(
  (usages: ExtendedKeyUsage[]) => usages.join(),
  (usages) => extension(OID.extKeyUsage, false, der.sequence(usages.map((u) => der.oid(EXTENDED_KEY_USAGE_OIDS[u])))),
);

function generalName(san: SubjectAltName): DerNode {
  const tag = SAN_TAGS[san.type];
  if (san.type !== "ip_address") return der.implicitPrimitive(tag, Buffer.from(san.value, "latin1"));
  const ip = parseIp(san.value);
  if (!ip) throw new Error(`not an IP address: ${san.value}`);
  return der.implicitPrimitive(tag, ip.bytes);
}

/** The subjectAltName extension's value, GeneralNames. */
export const subjectAltNameValue = (sans: SubjectAltName[]): Buffer => toDer(der.sequence(sans.map(generalName)));

/** Critical exactly when the subject is empty, as RFC 5280 §4.2.1.6 requires. */
export function subjectAltNameExtension(value: Buffer, subjectIsEmpty: boolean): DerNode {
  return extension(OID.subjectAltName, subjectIsEmpty, value);
}

export const subjectKeyIdentifierExtension = (keyId: Uint8Array): DerNode =>
  extension(OID.subjectKeyIdentifier, false, der.octetString(keyId));

export const authorityKeyIdentifierExtension = (keyId: Uint8Array): Buffer =>
  toDer(extension(OID.authorityKeyIdentifier, false, der.sequence([der.implicitPrimitive(0, keyId)])));

export const customExtension = (ext: { oid: string; critical: boolean; value: string }): DerNode =>
  extension(ext.oid, ext.critical, customExtensionValueDer(ext.value));

// ---- reading ----

export interface RawExtension {
  critical: boolean;
  value: Buffer;
}

/** Extensions of a decoded TBSCertificate's `[3]` field, by OID. */
export function readExtensions(field: Asn1 | undefined): Map<string, RawExtension> {
  const map = new Map<string, RawExtension>();
  if (!field) return map;
  for (const item of children(children(field, "extensions")[0], "extensions")) {
    const [oid, second, third] = children(item, "extension");
    const critical = third ? readBoolean(second) : false;
    map.set(readOid(oid), { critical, value: contents(third ?? second, "extension value") });
  }
  return map;
}

export function readBasicConstraints(value: Buffer | undefined): { isCA: boolean; pathLength?: number } {
  if (!value) return { isCA: false };
  const fields = children(decode(value), "basicConstraints");
  const isCA = isBoolean(fields[0]) && readBoolean(fields[0]);
  const lengthField = fields.find(isInteger);
  return lengthField ? { isCA, pathLength: readSmallInteger(lengthField) } : { isCA };
}

export function readKeyUsages(value: Buffer | undefined): KeyUsage[] | undefined {
  if (!value) return undefined;
  const bytes = contents(decode(value), "keyUsage").subarray(1);
  return KEY_USAGES.filter((_, bit) => ((bytes[bit >> 3] ?? 0) & (0x80 >> (bit & 7))) !== 0);
}

const EKU_BY_OID = new Map<string, ExtendedKeyUsage>(Object.entries(EXTENDED_KEY_USAGE_OIDS).map(([name, oid]) => [oid, name as ExtendedKeyUsage]));

/** The extended key usages we name, in the extension's order; OIDs we do not model are left out. */
export function readExtendedKeyUsages(value: Buffer | undefined): ExtendedKeyUsage[] {
  if (!value) return [];
  return children(decode(value), "extKeyUsage").flatMap((node) => EKU_BY_OID.get(readOid(node)) ?? []);
}

const SAN_TYPE_BY_TAG = new Map<number, SanType>(Object.entries(SAN_TAGS).map(([type, tag]) => [tag, type as SanType]));

/** The SANs of the four types we model; other GeneralName forms (directoryName, otherName) are skipped. */
export function readSubjectAltNames(value: Buffer | undefined): SubjectAltName[] {
  if (!value) return [];
  const names: SubjectAltName[] = [];
  for (const name of children(decode(value), "subjectAltName")) {
    const type = SAN_TYPE_BY_TAG.get(name.type);
    if (!type || !isContext(name, name.type) || name.constructed) continue;
    const bytes = contents(name);
    if (type !== "ip_address") names.push({ type, value: bytes.toString("latin1") });
    else if (bytes.length === 4 || bytes.length === 16) names.push({ type, value: formatIp(bytes) });
  }
  return names;
}

export function readKeyIdentifier(value: Buffer | undefined): Buffer | undefined {
  return value ? contents(decode(value), "subjectKeyIdentifier") : undefined;
}
