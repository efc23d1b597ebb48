import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import { tablesOf, UniqueViolationError, type Storage } from "../storage/table.js";
import { open, packSealed, seal, unpackSealed } from "./aead.js";
import { keyTables } from "./tables.js";

const ROOT_KEY_CHECK = "strongroom-root-key-check-v1";

export class RootKeyMismatchError extends Error {
  constructor(fingerprint?: string) {
    super(
      `The configured root key${fingerprint ? ` (fingerprint ${fingerprint})` : ""} does not match the one this database was sealed with; refusing to start. ` +
        "If the root key was rotated (strongroom rotate-root-key), configure the new key on every node.",
    );
    this.name = "RootKeyMismatchError";
  }
}

/** Parses a base64 root key; it must decode to exactly 32 bytes. */
export function parseRootKey(value: string | Buffer): Buffer {
  const key = typeof value === "string" ? Buffer.from(value.trim(), "base64") : value;
  if (key.length !== 32) throw new Error("The root key must be 32 bytes, base64-encoded");
  return key;
}

export const generateRootKey = (): string => randomBytes(32).toString("base64");

/** What `instance_meta.rootKeyCheck` holds: a known text sealed under the root key. */
export const sealRootKeyCheck = (rootKey: Buffer): string => packSealed(seal(rootKey, ROOT_KEY_CHECK));

/** Whether `rootKey` is the key a database's `rootKeyCheck` was sealed with. */
export function rootKeyMatches(rootKey: Buffer, rootKeyCheck: string): boolean {
  try {
    return open(rootKey, unpackSealed(rootKeyCheck)).toString() === ROOT_KEY_CHECK;
  } catch {
    return false;
  }
}

/**
 * A root key's public name, to tell keys apart in logs and backups: 16 bytes of SHA-256 over a
 * label and the key, hex in groups of four. It reveals nothing usable about the key.
 */
export function rootKeyFingerprint(rootKey: Buffer): string {
  const digest = createHash("sha256").update("strongroom-root-key-fingerprint-v1\0").update(rootKey).digest("hex").slice(0, 32);
  return digest.match(/.{4}/g)!.join(":");
}

/**
 * Envelope encryption: the root key wraps one random data key per organization and per project.
 * Unwrapped data keys are cached in memory for the life of the instance.
 */
export class KeyRing {
  private readonly cache = new Map<string, Buffer>();

  constructor(private readonly rootKey: Buffer) {}

  /** Fails loudly when the root key differs from the one recorded at first start. */
  async verify(storage: Storage, now: Date): Promise<void> {
    let meta = await tablesOf(storage, keyTables).instanceMeta.get("instance");
    if (!meta) {
      try {
        await tablesOf(storage, keyTables).instanceMeta.insert({
          id: "instance",
          rootKeyCheck: sealRootKeyCheck(this.rootKey),
          createdAt: now.toISOString(),
        });
        return;
      } catch (error) {
        // Another node starting at the same moment recorded its key first: check ours against it.
        if (!(error instanceof UniqueViolationError)) throw error;
        meta = await tablesOf(storage, keyTables).instanceMeta.get("instance");
        if (!meta) throw error;
      }
    }
    if (rootKeyMatches(this.rootKey, meta.rootKeyCheck)) return;
    throw new RootKeyMismatchError(rootKeyFingerprint(this.rootKey));
  }

  /** Creates and stores a wrapped data key; returns its id. */
  async createDataKey(storage: Storage, owner: { orgId?: string; projectId?: string }, purpose: string, now: Date): Promise<string> {
    const id = randomUUID();
    const key = randomBytes(32);
    await tablesOf(storage, keyTables).kmsKeys.insert({
      id,
      orgId: owner.orgId ?? null,
      projectId: owner.projectId ?? null,
      purpose,
      wrappedKey: packSealed(seal(this.rootKey, key, id)),
      createdAt: now.toISOString(),
    });
    this.cache.set(id, key);
    return id;
  }

  /**
   * The data key with a fixed id (an instance-wide key such as the audit log's), created on first
   * use; two nodes creating it at once end up with the same one.
   */
  async ensureDataKey(storage: Storage, keyId: string, purpose: string, now: Date): Promise<Buffer> {
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    if (!(await tablesOf(storage, keyTables).kmsKeys.get(keyId))) {
      try {
        await tablesOf(storage, keyTables).kmsKeys.insert({
          id: keyId,
          orgId: null,
          projectId: null,
          purpose,
          wrappedKey: packSealed(seal(this.rootKey, randomBytes(32), keyId)),
          createdAt: now.toISOString(),
        });
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
      }
    }
    return this.dataKey(storage, keyId);
  }

  async dataKey(storage: Storage, keyId: string): Promise<Buffer> {
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    const row = await tablesOf(storage, keyTables).kmsKeys.get(keyId);
    if (!row) throw new Error(`data key ${keyId} is missing`);
    const key = open(this.rootKey, unpackSealed(row.wrappedKey), keyId);
    this.cache.set(keyId, key);
    return key;
  }

  /** A key derived for blind indexes, so the index never reveals the encryption key itself. */
  async blindIndexKey(storage: Storage, keyId: string): Promise<Buffer> {
    const cacheKey = `${keyId}:blind`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const derived = createHmac("sha256", await this.dataKey(storage, keyId)).update("blind-index").digest();
    this.cache.set(cacheKey, derived);
    return derived;
  }

  /** Seals with the root key directly: for instance-level secrets such as CA private keys of the proxy. */
  sealWithRoot(plaintext: string | Buffer, aad?: string): string {
    return packSealed(seal(this.rootKey, plaintext, aad));
  }

  openWithRoot(packed: string, aad?: string): Buffer {
    return open(this.rootKey, unpackSealed(packed), aad);
  }
}
