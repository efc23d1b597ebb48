/** Profile defaults + request attributes → one fully resolved issuance (DESIGN.md §8). Pure. */
import {
  DEFAULT_KEY_ALGORITHM,
  type KeyAlgorithm,
  assertSignatureCompatible,
  defaultSignatureAlgorithm,
} from "../../x509/algorithms.js";
import {
  type CustomExtension,
  type ResolvedIssuance,
  SUBJECT_ATTRIBUTES,
  type SubjectAttributes,
} from "../../x509/resolved-issuance.js";
import type { SubjectAltName } from "../../x509/vocabulary.js";
import { resolveTtl } from "../durations.js";
import { type IssuanceAttributes, type ProfileDefaults, type SubjectAltNameInput, inferSanType } from "../schemas.js";

export interface MergeOptions {
  /** The issuing CA's key; absent for self-signed, where the certificate's own key signs. */
  signerKeyAlgorithm?: KeyAlgorithm;
  /** The moment of issuance: where a requested `notAfter` without `notBefore` counts from. */
  now?: Date;
}

/**
 * The certificate's lifetime: an explicit `notAfter` (from `notBefore`, or from now), else the
 * request's `ttl`, else the profile's `ttlDays` (a 400 when none says).
 */
function validity(request: IssuanceAttributes, defaults: ProfileDefaults, now: Date | undefined): { ttlMs: number; notBefore?: Date } {
  const notBefore = request.notBefore ? new Date(request.notBefore) : undefined;
  if (request.notAfter) {
    const start = notBefore ?? now ?? new Date();
    return { ttlMs: Date.parse(request.notAfter) - start.getTime(), ...(notBefore ? { notBefore } : {}) };
  }
  return { ttlMs: resolveTtl(request.ttl, defaults.ttlDays), ...(notBefore ? { notBefore } : {}) };
}

const present = (value: string | undefined): string | undefined => (value === undefined || value === "" ? undefined : value);

export const normalizeSubjectAltNames = (sans: SubjectAltNameInput[]): SubjectAltName[] =>
  sans.map((san) => ({ type: san.type ?? inferSanType(san.value), value: san.value }));

/** Custom extensions merge by OID, so a profile can mandate one that a request cannot drop, only override. */
function mergeCustomExtensions(defaults: CustomExtension[], request: CustomExtension[]): CustomExtension[] {
  const overridden = new Set(request.map((e) => e.oid));
  return [...defaults.filter((e) => !overridden.has(e.oid)), ...request];
}

/**
 * The request wins; a scalar it leaves out (or sends as "") falls back to the profile default.
 * List fields (`keyUsages`, `extendedKeyUsages`, `subjectAltNames`, `domainComponents`) and
 * `basicConstraints` are replaced whole when sent: a request for another host must not inherit
 * the profile's names. The signature algorithm falls back to the signer's natural one, and is
 * then checked against the key that will actually sign.
 */
export function mergeProfileDefaults(
  defaults: ProfileDefaults | undefined,
  request: IssuanceAttributes | undefined,
  options: MergeOptions = {},
): ResolvedIssuance {
  const d = defaults ?? {};
  const r = request ?? {};
  const subject: SubjectAttributes = {};
  for (const field of SUBJECT_ATTRIBUTES) {
    const value = present(r[field]) ?? present(d[field]);
    if (value !== undefined) subject[field] = value;
  }
  const keyAlgorithm = r.keyAlgorithm ?? d.keyAlgorithm ?? DEFAULT_KEY_ALGORITHM;
  const signer = options.signerKeyAlgorithm ?? keyAlgorithm;
  const signatureAlgorithm = r.signatureAlgorithm ?? d.signatureAlgorithm ?? defaultSignatureAlgorithm(signer);
  assertSignatureCompatible(signatureAlgorithm, signer);
  const basicConstraints = r.basicConstraints ?? d.basicConstraints;
  return {
    subject,
    keyAlgorithm,
    signatureAlgorithm,
    keyUsages: r.keyUsages ?? d.keyUsages ?? [],
    extendedKeyUsages: r.extendedKeyUsages ?? d.extendedKeyUsages ?? [],
    ...(basicConstraints ? { basicConstraints } : {}),
    subjectAltNames: normalizeSubjectAltNames(r.altNames ?? r.subjectAltNames ?? d.subjectAltNames ?? []),
    domainComponents: r.domainComponents ?? d.domainComponents ?? [],
    customExtensions: mergeCustomExtensions(d.customExtensions ?? [], r.customExtensions ?? []),
    ...validity(r, d, options.now),
  };
}

/** Whether an issuance makes a CA certificate: one that can sign others. */
export const issuesAuthority = (issuance: Pick<ResolvedIssuance, "basicConstraints">): boolean => issuance.basicConstraints?.isCA === true;
