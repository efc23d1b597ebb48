/**
 * Assembles and signs an X.509 v3 certificate.
 *
 * Which library builds what, and why: every certificate, RSA or EC, takes one path. Native
 * node:crypto generates the keys and makes the signatures; a small Buffer-based DER writer
 * (der-writer.ts) lays out the TBSCertificate; node-forge's ASN.1 parser reads certificates and
 * CSRs back (der-reader.ts). node-forge's own certificate builder handles RSA keys only and
 * signs in pure JavaScript; @peculiar/x509, the usual EC-capable alternative, will not load
 * without a global `reflect-metadata` polyfill (its dependency-injection container needs one),
 * which a library must not impose on its host. We first wrote the DER with forge's encoder as
 * well; on its binary strings the encoding cost more than the ECDSA signature it wraps (about
 * 45 µs against 30 µs per certificate), where the Buffer writer needs about 15 µs. Reading,
 * where robustness against hostile input matters more than speed, stayed with forge.
 */
import { type KeyObject, randomBytes, sign } from "node:crypto";
import { SIGNATURE_ALGORITHM_SPECS, type SignatureAlgorithm } from "./algorithms.js";
import { type Der, der, toDer } from "./der-writer.js";

export interface CertificateTemplate {
  /** Positive, DER-minimal INTEGER content. */
  serial: Buffer;
  /** Names, SubjectPublicKeyInfo and Extensions, encoded or still to be. */
  issuerName: Der;
  subjectName: Der;
  notBefore: Date;
  notAfter: Date;
  subjectPublicKeyInfo: Der;
  extensions: Der[];
  signatureAlgorithm: SignatureAlgorithm;
  signingKey: KeyObject;
}

const ALGORITHM_IDENTIFIERS = new Map(
  Object.entries(SIGNATURE_ALGORITHM_SPECS).map(([name, spec]) => [
    name,
    toDer(der.sequence([der.oid(spec.oid), ...(spec.family === "rsa" ? [der.null()] : [])])),
  ]),
);

export const algorithmIdentifier = (algorithm: SignatureAlgorithm): Buffer => ALGORITHM_IDENTIFIERS.get(algorithm)!;

// Serials are cut from a larger random block: one CSPRNG call per 256 certificates instead of one each.
const SERIAL_BYTES = 16;
let randomPool = Buffer.alloc(0);
let poolOffset = 0;

/** 16 random bytes with the top bit clear (positive) and a non-zero first byte (so DER keeps all 16). */
export function randomSerial(): Buffer {
  if (poolOffset + SERIAL_BYTES > randomPool.length) {
    randomPool = randomBytes(SERIAL_BYTES * 256);
    poolOffset = 0;
  }
  const serial = Buffer.from(randomPool.subarray(poolOffset, poolOffset + SERIAL_BYTES));
  poolOffset += SERIAL_BYTES;
  serial[0] = serial[0]! & 0x7f || 0x01;
  return serial;
}

/**
 * ECDSA signs in tens of microseconds, less than a round trip through the libuv pool, so it
 * runs inline; an RSA signature takes milliseconds and goes to the pool to keep the event loop free.
 */
export function signData(hash: string, data: Buffer, key: KeyObject): Promise<Buffer> {
  if (key.asymmetricKeyType === "ec") return Promise.resolve(sign(hash, data, key));
  return new Promise((resolve, reject) => sign(hash, data, key, (error, signature) => (error ? reject(error) : resolve(signature))));
}

const VERSION_3 = toDer(der.explicit(0, der.smallInteger(2)));

/** Certificate DER. ECDSA signatures come out of node:crypto DER-encoded, as X.509 wants them. */
export async function signCertificate(template: CertificateTemplate): Promise<Buffer> {
  const algorithm = algorithmIdentifier(template.signatureAlgorithm);
  const tbs = toDer(
    der.sequence([
      VERSION_3,
      der.integer(template.serial),
      algorithm,
      template.issuerName,
      der.sequence([der.time(template.notBefore), der.time(template.notAfter)]),
      template.subjectName,
      template.subjectPublicKeyInfo,
      ...(template.extensions.length > 0 ? [der.explicit(3, der.sequence(template.extensions))] : []),
    ]),
  );
  const signature = await signData(SIGNATURE_ALGORITHM_SPECS[template.signatureAlgorithm].hash, tbs, template.signingKey);
  return toDer(der.sequence([tbs, algorithm, der.bitString(signature)]));
}
