/**
 * `@strongroom/core/audit`: streaming the audit log out of the process (a JSON-lines file, a
 * signed HTTPS webhook, or any transport behind the same bounded buffer), and what a receiver
 * needs to check a delivery's signature; and the pure verifier, which checks any copy of the
 * log (API answers, a sink's lines) with nothing but the entries and the public key.
 */
export * from "../audit/sinks/index.js";
// What a verifier outside the server needs (`strongroom audit verify --file`, a receiver's own check).
export { verifyChain, type VerifiableEntry, type VerifyAnchor, type VerifyOptions } from "../audit/verify.js";
export { entryHash, GENESIS_HASH, checkpointSignatureValid } from "../audit/chain.js";
export {
  auditEntrySchema,
  auditHeadSchema,
  auditCheckpointSchema,
  type AuditEntry,
  type AuditHead,
  type AuditCheckpoint,
  type AuditVerifyResult,
} from "../audit/schemas.js";
export type { AuditSink, AuditSinkLag } from "../audit/sink.js";
