/**
 * `@strongroom/core/maintenance`: what operators' tools need beside the API: telling root keys
 * apart and checking one against a database (backup, restore), and rotating keys.
 */
export { parseRootKey, generateRootKey, rootKeyMatches, rootKeyFingerprint, RootKeyMismatchError } from "../crypto/keyring.js";
/** The audit log's verifier, as `strongroom audit verify` and anyone holding a copy run it (no secret needed). */
export { verifyChain, type VerifyAnchor, type VerifyOptions, type VerifiableEntry } from "../audit/verify.js";
export { entryHash, checkpointSignatureValid, GENESIS_HASH } from "../audit/chain.js";
export { auditEntrySchema, auditHeadSchema, auditCheckpointSchema, auditVerifyResultSchema } from "../audit/schemas.js";
/** Which event type each operation is recorded under (tests walk the route table against it). */
export { AUDIT_EVENT_TYPES, UNAUDITED_OPERATIONS } from "../audit/event-types.js";
