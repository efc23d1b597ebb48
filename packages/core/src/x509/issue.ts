/** Issuing certificates: CAs, and leaves from a CA or self-signed, with a fresh key or from a CSR. */
import { type KeyObject, createPrivateKey } from "node:crypto";
import { BadRequestError } from "../kernel/errors.js";
import {
  DEFAULT_KEY_ALGORITHM,
  type KeyAlgorithm,
  type SignatureAlgorithm,
  assertSignatureCompatible,
  defaultSignatureAlgorithm,
} from "./algorithms.js";
import { signCertificate, randomSerial } from "./certificate-builder.js";
import { type ParsedCertificate, keyIdentifier } from "./certificate-reader.js";
import { parseCsr } from "./csr.js";
import { decode } from "./der-reader.js";
import { concatDer, derLength, toDer } from "./der-writer.js";
import { buildName, commonNameOf, formatName, readName } from "./distinguished-name.js";
import {
  basicConstraintsExtension,
  customExtension,
  extendedKeyUsageExtension,
  keyUsageExtension,
  readSubjectAltNames,
  subjectAltNameExtension,
  subjectAltNameValue,
  subjectKeyIdentifierExtension,
} from "./extensions.js";
import { assertIssuable } from "./issuance-rules.js";
import { type IssuerKeyPair, type PreparedIssuer, isPreparedIssuer, prepareIssuer } from "./issuer.js";
import { encodeKeyPair } from "./key-encoding.js";
import { generateKey } from "./keys.js";
import { certificateFingerprint, derToPem } from "./pem.js";
import { type ResolvedIssuance, SUBJECT_ATTRIBUTES, type SubjectAttributes } from "./resolved-issuance.js";
import type { KeyUsage } from "./vocabulary.js";

export type IssuerInput = IssuerKeyPair | PreparedIssuer | "self-signed";

/** A ResolvedIssuance (what the certificate manager resolves from a profile and a request) plus who signs, when, and optionally a CSR. */
export type IssueCertificateInput = Partial<Omit<ResolvedIssuance, "ttlMs">> & {
  issuer: IssuerInput;
  ttlMs: number;
  now: Date;
  /** PEM PKCS #10. Its key is certified (no private key is returned); its subject is used when `subject` and `domainComponents` are empty. */
  csrPem?: string;
};

/**
 * The certificate with what parseCertificate would read from it (taken from what was encoded, so
 * issuing never reads back what it has just built).
 */
export interface IssuedCertificate extends ParsedCertificate {
  certificatePem: string;
  /** PKCS #8 PEM; absent when the certificate was issued for a CSR. */
  privateKeyPem?: string;
  /** Lower-case hex. */
  serialNumber: string;
  keyAlgorithm: KeyAlgorithm;
  signatureAlgorithm: SignatureAlgorithm;
}

const CA_KEY_USAGES: KeyUsage[] = ["digital_signature", "key_cert_sign", "crl_sign"];
/** A Name with no attributes is an empty SEQUENCE: two bytes, 30 00. */
const EMPTY_NAME_LENGTH = 2;

const hasSubjectAttributes = (subject: SubjectAttributes, domainComponents: string[]): boolean =>
  domainComponents.length > 0 || SUBJECT_ATTRIBUTES.some((field) => (subject[field] ?? "") !== "");

/** Certificate times have whole seconds; dropping the milliseconds here keeps the returned dates equal to the encoded ones. */
const wholeSeconds = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

/** The subject's public key: from a CSR, or freshly generated (then with its private half). */
interface SubjectKey {
  spki: Buffer;
  publicKeyBits: Buffer;
  generated?: { privateKeyPem: string; signingKey: () => KeyObject };
}

async function generatedKey(keyAlgorithm: KeyAlgorithm): Promise<SubjectKey> {
  const jwk = await generateKey(keyAlgorithm);
  const encoded = encodeKeyPair(jwk, keyAlgorithm);
  return {
    spki: encoded.subjectPublicKeyInfo,
    publicKeyBits: encoded.publicKey,
    // Only a self-signed certificate signs with its own new key; importing it costs, so only then.
    generated: { privateKeyPem: encoded.privateKeyPem, signingKey: () => createPrivateKey({ key: jwk, format: "jwk" }) },
  };
}

export async function issueCertificate(input: IssueCertificateInput): Promise<IssuedCertificate> {
  // Everything that can refuse the request is decided first, before any key is generated.
  const issuer = input.issuer === "self-signed" ? undefined : isPreparedIssuer(input.issuer) ? input.issuer : prepareIssuer(input.issuer);
  if (input.csrPem !== undefined && !issuer) throw new BadRequestError("A self-signed certificate cannot be issued for a CSR: its key must sign it");
  const csr = input.csrPem !== undefined ? parseCsr(input.csrPem) : undefined;
  const keyAlgorithm = csr?.keyAlgorithm ?? input.keyAlgorithm ?? DEFAULT_KEY_ALGORITHM;
  const signer = issuer?.keyAlgorithm ?? keyAlgorithm;
  const signatureAlgorithm = input.signatureAlgorithm ?? defaultSignatureAlgorithm(signer);
  assertSignatureCompatible(signatureAlgorithm, signer);

  const subject = input.subject ?? {};
  const domainComponents = input.domainComponents ?? [];
  const subjectName = csr && !hasSubjectAttributes(subject, domainComponents) ? csr.subjectName : buildName(subject, domainComponents);
  const subjectIsEmpty = derLength(subjectName) === EMPTY_NAME_LENGTH;
  const subjectAltNames = input.subjectAltNames ?? [];
  const isCA = input.basicConstraints?.isCA ?? false;
  const pathLength = isCA ? input.basicConstraints?.pathLength : undefined;
  const keyUsages = [...new Set(isCA && !input.keyUsages?.length ? CA_KEY_USAGES : (input.keyUsages ?? []))];
  const extendedKeyUsages = [...new Set(input.extendedKeyUsages ?? [])];
  const notBefore = wholeSeconds((input.notBefore ?? input.now).getTime());
  const notAfter = wholeSeconds(notBefore.getTime() + input.ttlMs);
  assertIssuable({
    isCA,
    ...(pathLength !== undefined ? { pathLength } : {}),
    keyUsages,
    hasSubject: !subjectIsEmpty,
    subjectAltNameCount: subjectAltNames.length,
    notBefore,
    notAfter,
    ...(issuer ? { issuer } : {}),
  });

  // An RSA key is generated on the libuv pool while everything that does not depend on it is
  // encoded here, leaving only the key's own fields for after the wait (an EC key is ready at once).
  const pendingKey: Promise<SubjectKey> = csr
    ? Promise.resolve({ spki: csr.subjectPublicKeyInfo, publicKeyBits: csr.publicKeyBits })
    : generatedKey(keyAlgorithm);
  // Marks the rejection handled should the layout below throw first; the await still sees it.
  pendingKey.catch(() => undefined);
  const sanValue = subjectAltNames.length > 0 ? subjectAltNameValue(subjectAltNames) : undefined;
  const leadingExtensions = concatDer([
    basicConstraintsExtension(isCA, pathLength),
    ...(keyUsages.length > 0 ? [keyUsageExtension(keyUsages)] : []),
    ...(extendedKeyUsages.length > 0 ? [extendedKeyUsageExtension(extendedKeyUsages)] : []),
    ...(sanValue ? [subjectAltNameExtension(sanValue, subjectIsEmpty)] : []),
  ]);
  const trailingExtensions = concatDer([...(issuer ? [issuer.authorityKeyIdentifier] : []), ...(input.customExtensions ?? []).map(customExtension)]);
  const subjectNameDer = toDer(subjectName);
  const subjectAttributes = readName(decode(subjectNameDer));
  const subjectText = formatName(subjectAttributes);
  const serial = randomSerial();

  const key = await pendingKey;
  const certificate = await signCertificate({
    serial,
    issuerName: issuer?.subjectName ?? subjectNameDer,
    subjectName: subjectNameDer,
    notBefore,
    notAfter,
    subjectPublicKeyInfo: key.spki,
    extensions: [leadingExtensions, subjectKeyIdentifierExtension(keyIdentifier(key.publicKeyBits)), trailingExtensions],
    signatureAlgorithm,
    signingKey: issuer?.privateKey ?? key.generated!.signingKey(),
  });
  return {
    certificatePem: derToPem(certificate, "CERTIFICATE"),
    ...(key.generated ? { privateKeyPem: key.generated.privateKeyPem } : {}),
    serialNumber: serial.toString("hex"),
    fingerprintSha256: certificateFingerprint(certificate),
    commonName: commonNameOf(subjectAttributes),
    subject: subjectText,
    issuer: issuer?.subject ?? subjectText,
    isCA,
    // Read back from the encoding: an IP address comes back in its canonical form.
    subjectAltNames: readSubjectAltNames(sanValue),
    notBefore,
    notAfter,
    keyAlgorithm,
    signatureAlgorithm,
  };
}

export interface CreateCaInput {
  commonName: string;
  keyAlgorithm: KeyAlgorithm;
  ttlMs: number;
  now: Date;
  organization?: string;
  signatureAlgorithm?: SignatureAlgorithm;
  /** Limit on CA certificates below this one; unlimited when absent. */
  pathLength?: number;
}

function caIssuance(input: CreateCaInput, issuer: IssuerInput): IssueCertificateInput {
  return {
    issuer,
    subject: { commonName: input.commonName, ...(input.organization ? { organization: input.organization } : {}) },
    keyAlgorithm: input.keyAlgorithm,
    ...(input.signatureAlgorithm ? { signatureAlgorithm: input.signatureAlgorithm } : {}),
    basicConstraints: { isCA: true, ...(input.pathLength !== undefined ? { pathLength: input.pathLength } : {}) },
    keyUsages: CA_KEY_USAGES,
    ttlMs: input.ttlMs,
    now: input.now,
  };
}

export const createRootCa = (input: CreateCaInput): Promise<IssuedCertificate> => issueCertificate(caIssuance(input, "self-signed"));

export const createIntermediateCa = (input: CreateCaInput & { parent: IssuerKeyPair | PreparedIssuer }): Promise<IssuedCertificate> =>
  issueCertificate(caIssuance(input, input.parent));
