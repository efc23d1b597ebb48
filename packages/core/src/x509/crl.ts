/**
 * Certificate revocation lists (RFC 5280 §5): a v2 CRL signed by the CA that issued the
 * certificates it lists, with the CRL number and authority key identifier extensions a
 * conforming CRL carries, and a reason code per entry unless the reason is unspecified.
 */
import { defaultSignatureAlgorithm, SIGNATURE_ALGORITHM_SPECS } from "./algorithms.js";
import { algorithmIdentifier, signData } from "./certificate-builder.js";
import { der, tlv, toDer, type Der } from "./der-writer.js";
import { extension } from "./extensions.js";
import type { PreparedIssuer } from "./issuer.js";
import { derToPem } from "./pem.js";

/** RFC 5280 §5.3.1 reason codes by Infisical's names for them (7 is unused). */
export const REVOCATION_REASON_CODES = {
  UNSPECIFIED: 0,
  KEY_COMPROMISE: 1,
  CA_COMPROMISE: 2,
  AFFILIATION_CHANGED: 3,
  SUPERSEDED: 4,
  CESSATION_OF_OPERATION: 5,
  CERTIFICATE_HOLD: 6,
  PRIVILEGE_WITHDRAWN: 9,
  A_A_COMPROMISE: 10,
} as const;

export type RevocationReason = keyof typeof REVOCATION_REASON_CODES;
export const REVOCATION_REASONS = Object.keys(REVOCATION_REASON_CODES) as [RevocationReason, ...RevocationReason[]];

export interface RevokedEntry {
  /** The certificate's serial number, hex as certificate-reader gives it. */
  serialNumber: string;
  revokedAt: Date;
  reason: RevocationReason;
}

export interface CrlInput {
  issuer: PreparedIssuer;
  /** Monotonically increasing per CA (the cRLNumber extension). */
  number: number;
  thisUpdate: Date;
  nextUpdate: Date;
  revoked: readonly RevokedEntry[];
}

const OID = { cRLNumber: "2.5.29.20", reasonCode: "2.5.29.21" };
const ENUMERATED = 0x0a;
const VERSION_2 = toDer(der.smallInteger(1));

/** The minimal positive DER INTEGER content of a hex serial (a leading zero octet when the top bit is set). */
export function serialContent(hex: string): Buffer {
  const even = hex.length % 2 ? `0${hex}` : hex;
  let bytes = Buffer.from(even, "hex");
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && !(bytes[start + 1]! & 0x80)) start++;
  bytes = bytes.subarray(start);
  return bytes.length && bytes[0]! & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes;
}

/** Certificate times have whole seconds, as in issue.ts. */
const wholeSeconds = (date: Date): Date => new Date(Math.floor(date.getTime() / 1000) * 1000);

function entry(revoked: RevokedEntry): Der {
  const code = REVOCATION_REASON_CODES[revoked.reason];
  // RFC 5280 §5.3.1: the reason code extension SHOULD be absent rather than say "unspecified".
  const extensions = code === 0 ? [] : [der.sequence([extension(OID.reasonCode, false, tlv(ENUMERATED, [Buffer.of(code)]))])];
  return der.sequence([der.integer(serialContent(revoked.serialNumber)), der.time(wholeSeconds(revoked.revokedAt)), ...extensions]);
}

/** A signed CRL in PEM. Entries come in the order given. */
export async function signCrl(input: CrlInput): Promise<string> {
  const signatureAlgorithm = defaultSignatureAlgorithm(input.issuer.keyAlgorithm);
  const algorithm = algorithmIdentifier(signatureAlgorithm);
  const crlExtensions = der.sequence([input.issuer.authorityKeyIdentifier, extension(OID.cRLNumber, false, der.smallInteger(input.number))]);
  const tbs = toDer(
    der.sequence([
      VERSION_2,
      algorithm,
      input.issuer.subjectName,
      der.time(wholeSeconds(input.thisUpdate)),
      der.time(wholeSeconds(input.nextUpdate)),
      // An empty list is left out altogether (RFC 5280 §5.1.2.6).
      ...(input.revoked.length ? [der.sequence(input.revoked.map(entry))] : []),
      der.explicit(0, crlExtensions),
    ]),
  );
  const signature = await signData(SIGNATURE_ALGORITHM_SPECS[signatureAlgorithm].hash, tbs, input.issuer.privateKey);
  return derToPem(toDer(der.sequence([tbs, algorithm, der.bitString(signature)])), "X509 CRL");
}
