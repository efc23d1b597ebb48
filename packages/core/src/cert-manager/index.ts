/** The certificate manager's storage-free machinery: schemas, decisions, X.509 and the TLS scanner. */
export * from "../x509/algorithms.js";
export * from "../x509/vocabulary.js";
export * from "./schemas.js";
export * from "./durations.js";
export * from "./profiles/merge.js";
export { issuanceProblem, assertIssuable, type IssuanceFacts } from "./certificates/issuance-rules.js";
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
export { classifyAddress, addressRefusal, type AddressClass } from "../net/address-class.js";
export { parseIp, formatIp, type IpAddress } from "../net/ip.js";
export { isHostname } from "../x509/names-syntax.js";
export { parsePorts, MAX_PORTS } from "../net/ports.js";
export { expandTargets, expandIpRange, MAX_TARGET_HOSTS, MIN_PREFIX, type DiscoveryTarget, type TargetConfigInput } from "./discovery/targets.js";
export {
  scanTargets,
  type ScanTarget,
  type ScanStatus,
  type ScanResult,
  type ScanOptions,
  type ScannedCertificate,
} from "./node/tls-scanner.js";
