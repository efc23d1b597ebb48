import { createPublicKey, hash as oneShotHash, sign as edSign, verify as edVerify, type KeyObject } from "node:crypto";
import type { AuditCheckpoint, AuditEntry, AuditMetadata } from "./schemas.js";

/**
 * The hash chain, as pure functions: what an entry's hash covers and what a checkpoint signs.
 * Anyone holding entries in their public form (API answers, sink lines) and the instance's public
 * key can recompute both; nothing here needs a secret.
 *
 *   metadataDigest = sha256(salt ‖ canonical(metadata))
 *   hash           = sha256(canonical([v1, prevHash, chain, seq, id, createdAt, …fields, metadataDigest]))
 *
 * The salt is random per entry and sealed at rest with the metadata, so a database dump does not
 * let anyone test guesses of a secret's name against the (plaintext) hash.
 */

/** The `prevHash` of a chain's first entry. */
export const GENESIS_HASH = "0".repeat(64);

const HASH_VERSION = "strongroom-audit-v1";

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value as Record<string, unknown>)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

// One-shot hashing: no Hash object per call (two hashes per entry, on every read).
const sha256 = (text: string): string => oneShotHash("sha256", text, "hex");

export const metadataDigest = (salt: string, metadata: AuditMetadata): string => sha256(`${salt}\n${canonicalJson(metadata)}`);

/** What an entry's hash covers: every field but `hash` itself. */
export type HashedFields = Omit<AuditEntry, "hash">;

export function entryHash(entry: HashedFields): string {
  // An array of scalars: JSON.stringify is already its canonical form (and much cheaper).
  return sha256(
    JSON.stringify([
      HASH_VERSION,
      entry.prevHash,
      entry.chain,
      entry.seq,
      entry.id,
      entry.createdAt,
      entry.orgId,
      entry.projectId,
      entry.environment,
      entry.secretPath,
      entry.actor.type,
      entry.actor.metadata.id,
      entry.actor.metadata.name,
      entry.event.type,
      entry.outcome,
      entry.ipAddress,
      entry.userAgent,
      entry.count,
      metadataDigest(entry.salt, entry.event.metadata),
    ]),
  );
}

/** The bytes a checkpoint's signature covers. */
export const checkpointMessage = (c: Pick<AuditCheckpoint, "chain" | "seq" | "hash" | "createdAt">): Buffer =>
  Buffer.from(`${HASH_VERSION}:checkpoint\n${c.chain}\n${c.seq}\n${c.hash}\n${c.createdAt}`, "utf8");

export function signCheckpoint(c: Pick<AuditCheckpoint, "chain" | "seq" | "hash" | "createdAt">, privateKey: KeyObject): string {
  return edSign(null, checkpointMessage(c), privateKey).toString("base64");
}

/** True when `checkpoint` was signed by the key whose SPKI DER (base64) is `publicKeySpki`. */
export function checkpointSignatureValid(checkpoint: AuditCheckpoint, publicKeySpki: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeySpki, "base64"), format: "der", type: "spki" });
    return edVerify(null, checkpointMessage(checkpoint), key, Buffer.from(checkpoint.signature, "base64"));
  } catch {
    return false;
  }
}
