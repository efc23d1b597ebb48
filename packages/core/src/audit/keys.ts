import { createHmac, createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { open, packSealed, randomSlices, seal, unpackSealed } from "../crypto/aead.js";
import type { KeyRing } from "../crypto/keyring.js";
import { shortHmac } from "../crypto/short-hmac.js";
import { tablesOf, UniqueViolationError, type Storage } from "../storage/table.js";
import type { AuditMetadata } from "./schemas.js";
import { auditTables } from "./tables.js";

/** The instance-wide data key audit metadata is sealed under (a `kms_keys` row with this fixed id). */
export const AUDIT_DATA_KEY_ID = "audit-log-metadata";
/** The checkpoint signing key's id (one per instance; a new id when it is ever replaced). */
export const AUDIT_SIGNING_KEY_ID = "audit-signing-1";

/**
 * The audit log's keys, loaded once at start: the data key that seals metadata (and derives the
 * blind index of secret keys), and the Ed25519 checkpoint key, its private half sealed under the
 * root key. Two nodes starting together end up with the same keys.
 */
export interface AuditKeys {
  /** Seals metadata given as its canonical JSON text (`canonicalJson`), the same text its digest covers. */
  sealMetadata(salt: string, canonicalMetadata: string): string;
  /** Throws when the sealed text was altered. */
  openMetadata(sealed: string): { salt: string; metadata: AuditMetadata };
  /** A secret key's blind index: `BLIND_INDEX_LENGTH` hex characters (remembered: single names repeat). */
  blindIndex(secretKey: string): string;
  /** Writes `blindIndex(secretKey)`'s ASCII characters at `offset` of `target` (a batch's names: nothing remembered). */
  blindIndexInto(secretKey: string, target: Buffer, offset: number): void;
  readonly signing: { readonly keyId: string; readonly privateKey: KeyObject; readonly publicKeySpki: string };
}

const saltBytes = randomSlices(16);

/** The length of a blind index: the first 16 bytes of HMAC-SHA256, in hex. */
export const BLIND_INDEX_LENGTH = 32;

/** A fresh random salt (see `randomSlices`). */
export const newSalt = (): string => saltBytes().toString("base64url");

export async function loadAuditKeys(storage: Storage, keys: KeyRing, now: Date): Promise<AuditKeys> {
  const dataKey = await keys.ensureDataKey(storage, AUDIT_DATA_KEY_ID, "audit-log", now);
  const blindKey = createHmac("sha256", dataKey).update("audit-blind-index").digest();
  // HMAC-SHA256 under the blind key (a secret key's name fits the one-block fast path: see shortHmac).
  const blindHmac = shortHmac(blindKey, BLIND_INDEX_LENGTH / 2);
  const signing = await loadSigningKey(storage, keys, now);
  // The same few secret keys are named over and over: their indexes are kept.
  const indexes = new Map<string, string>();
  return {
    // The text `JSON.stringify({ s, m })` would give, without stringifying the metadata a second time.
    sealMetadata: (salt, canonicalMetadata) => packSealed(seal(dataKey, `{"s":${JSON.stringify(salt)},"m":${canonicalMetadata}}`, AUDIT_DATA_KEY_ID)),
    openMetadata(sealed) {
      const { s, m } = JSON.parse(open(dataKey, unpackSealed(sealed), AUDIT_DATA_KEY_ID).toString("utf8")) as { s: string; m: AuditMetadata };
      return { salt: s, metadata: m };
    },
    blindIndex(secretKey) {
      let index = indexes.get(secretKey);
      if (index === undefined) {
        index = blindHmac.hex(secretKey);
        if (indexes.size >= 10_000) indexes.clear();
        indexes.set(secretKey, index);
      }
      return index;
    },
    blindIndexInto: blindHmac.writeHex,
    signing,
  };
}

async function loadSigningKey(storage: Storage, keys: KeyRing, now: Date): Promise<AuditKeys["signing"]> {
  const table = tablesOf(storage, auditTables).auditSigningKeys;
  let row = await table.get(AUDIT_SIGNING_KEY_ID);
  if (!row) {
    const pair = generateKeyPairSync("ed25519");
    try {
      await table.insert({
        id: AUDIT_SIGNING_KEY_ID,
        publicKey: pair.publicKey.export({ format: "der", type: "spki" }).toString("base64"),
        sealedPrivateKey: keys.sealWithRoot(pair.privateKey.export({ format: "der", type: "pkcs8" }), AUDIT_SIGNING_KEY_ID),
        createdAt: now.toISOString(),
      });
    } catch (error) {
      if (!(error instanceof UniqueViolationError)) throw error;
    }
    row = await table.get(AUDIT_SIGNING_KEY_ID);
    if (!row) throw new Error("audit signing key missing after creation");
  }
  const privateKey = createPrivateKey({ key: keys.openWithRoot(row.sealedPrivateKey, row.id), format: "der", type: "pkcs8" });
  return { keyId: row.id, privateKey, publicKeySpki: row.publicKey };
}
