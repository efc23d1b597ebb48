/**
 * `@strongroom/core/x509`: the certificate toolkit — key generation, issuance with native
 * signing, CSR and certificate parsing, PEM — with no storage and no polyfills.
 */
export * from "../x509/algorithms.js";
export * from "../x509/vocabulary.js";
export { prepareIssuer, isPreparedIssuer, type IssuerKeyPair, type PreparedIssuer } from "../x509/issuer.js";
export {
  issueCertificate,
  createRootCa,
  createIntermediateCa,
  type IssuerInput,
  type IssueCertificateInput,
  type IssuedCertificate,
  type CreateCaInput,
} from "../x509/issue.js";
export { parseCsr, type CertificateRequest } from "../x509/csr.js";
export { parseCertificate, type ParsedCertificate } from "../x509/certificate-reader.js";
export { certificateFingerprint, pemBlocks, derToPem } from "../x509/pem.js";
export { issuanceProblem, assertIssuable, type IssuanceFacts } from "../x509/issuance-rules.js";
export {
  SUBJECT_ATTRIBUTES,
  type SubjectAttributes,
  type BasicConstraints,
  type CustomExtension,
  type ResolvedIssuance,
} from "../x509/resolved-issuance.js";
export { signCrl, serialContent, REVOCATION_REASONS, REVOCATION_REASON_CODES, type RevocationReason, type RevokedEntry, type CrlInput } from "../x509/crl.js";
export { withoutRoots } from "../x509/chain.js";
