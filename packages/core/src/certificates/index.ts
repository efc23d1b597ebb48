/** The certificate manager's storage-free machinery: schemas, decisions, X.509 and the TLS scanner. */
export * from "./algorithms.js";
export * from "./vocabulary.js";
export * from "./schemas.js";
export * from "./durations.js";
export * from "./merge.js";
export { issuanceProblem, assertIssuable, type IssuanceFacts } from "./issuance-rules.js";
export { prepareIssuer, isPreparedIssuer, type IssuerKeyPair, type PreparedIssuer } from "./issuer.js";
export {
  issueCertificate,
  createRootCa,
  createIntermediateCa,
  type IssuerInput,
  type IssueCertificateInput,
  type IssuedCertificate,
  type CreateCaInput,
} from "./issue.js";
export { parseCsr, type CertificateRequest } from "./csr.js";
export { parseCertificate, type ParsedCertificate } from "./certificate-reader.js";
export { certificateFingerprint, pemBlocks, derToPem } from "./pem.js";
export { classifyAddress, addressRefusal, type AddressClass } from "./address-class.js";
export { parseIp, formatIp, type IpAddress } from "./ip.js";
export { isHostname } from "./names-syntax.js";
export { parsePorts, MAX_PORTS } from "./ports.js";
export { expandTargets, expandIpRange, MAX_TARGET_HOSTS, MIN_PREFIX, type DiscoveryTarget, type TargetConfigInput } from "./targets.js";
export {
  scanTargets,
  type ScanTarget,
  type ScanStatus,
  type ScanResult,
  type ScanOptions,
  type ScannedCertificate,
} from "./scanner.js";
