/**
 * `@strongroom/core/maintenance`: what operators' tools need beside the API: telling root keys
 * apart and checking one against a database (backup, restore), and rotating keys.
 */
import type { Storage } from "../storage/table.js";
import { rewrapRootSealed, wrappedDataKeys, type RootRotationOutcome, type RootSealedColumn } from "../crypto/root-rotation.js";

export { parseRootKey, generateRootKey, rootKeyMatches, rootKeyFingerprint, RootKeyMismatchError } from "../crypto/keyring.js";
export { RootKeyNotRecognizedError, type RootRotationOutcome, type RootSealedColumn } from "../crypto/root-rotation.js";

/**
 * Every column sealed directly under the root key. Today only the data keys are: everything else
 * is sealed under a data key, which a root rotation leaves as it is. A feature that seals under
 * the root key (`KeyRing.sealWithRoot`) adds its column here, or the rotation would strand it.
 */
export const ROOT_SEALED_COLUMNS: readonly RootSealedColumn[] = [
  wrappedDataKeys,
  // The audit log's checkpoint signing key (DESIGN.md §11), where the audit area is assembled.
  { table: "auditSigningKeys", column: "sealedPrivateKey", aad: (row) => String(row.id), optional: true },
];

/**
 * `strongroom rotate-root-key`: rewraps every root-sealed value under `to`, all or nothing (see
 * `rewrapRootSealed`). Every node must be stopped.
 */
export const rotateRootKey = (storage: Storage, from: Buffer, to: Buffer): Promise<RootRotationOutcome> =>
  rewrapRootSealed(storage, from, to, ROOT_SEALED_COLUMNS);

export {
  rotateProjectDataKey,
  type DataKeyRotationOptions,
  type DataKeyRotationReport,
  type RotationStep,
} from "../maintenance/data-key-rotation.js";
/** The audit log's verifier, as `strongroom audit verify` and anyone holding a copy run it (no secret needed). */
export { verifyChain, type VerifyAnchor, type VerifyOptions, type VerifiableEntry } from "../audit/verify.js";
export { entryHash, checkpointSignatureValid, GENESIS_HASH } from "../audit/chain.js";
export { auditEntrySchema, auditHeadSchema, auditCheckpointSchema, auditVerifyResultSchema } from "../audit/schemas.js";
/** Which event type each operation is recorded under (tests walk the route table against it). */
export { AUDIT_EVENT_TYPES, UNAUDITED_OPERATIONS } from "../audit/event-types.js";
