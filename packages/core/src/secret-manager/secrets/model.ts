import type { ProjectCipher } from "../cipher.js";
import type { SecretActor, SecretRow, SecretVersionRow } from "../tables.js";
import { newRowId } from "./row-ids.js";

export type SecretType = "shared" | "personal";

export interface MetadataItem {
  key: string;
  value: string;
  isEncrypted: boolean;
}

/** Fields a write may set; absent fields keep their value. `tagIds` and `metadata` replace the whole set. */
export interface SecretChanges {
  newKey?: string;
  value?: string;
  comment?: string;
  metadata?: MetadataItem[];
  tagIds?: string[];
  reminderNote?: string | null;
  reminderRepeatDays?: number | null;
  skipMultilineEncoding?: boolean;
}

/** Where a secret lives: a folder (the environment's id for its root) and its normalised path. */
export interface FolderRef {
  id: string;
  path: string;
}

/** A secret in plaintext, as operations handle it between storage and response. */
export interface PlainSecret {
  id: string;
  folder: FolderRef;
  type: SecretType;
  ownerId: string;
  key: string;
  value: string;
  comment: string;
  metadata: MetadataItem[];
  tagIds: string[];
  reminderNote: string | null;
  reminderRepeatDays: number | null;
  skipMultilineEncoding: boolean;
  version: number;
  actor: SecretActor | null;
  createdAt: string;
  updatedAt: string;
}

/** What the seal holds: everything secret about a secret, encrypted metadata values in item order. */
type SealedFields = [key: string, value: string, comment: string, encryptedMetadata: string[]];

/** Opens a row into the secret it holds. */
export function decodeSecret(cipher: ProjectCipher, row: SecretRow, folder: FolderRef): PlainSecret {
  const [key, value, comment, hidden] = JSON.parse(cipher.open(row.sealed, row.id)) as SealedFields;
  let next = 0;
  return {
    id: row.id,
    folder,
    type: row.type as SecretType,
    ownerId: row.ownerId,
    key,
    value,
    comment,
    metadata: row.metadata.map((m) => ({ key: m.key, value: m.isEncrypted ? (hidden[next++] ?? "") : m.value, isEncrypted: m.isEncrypted })),
    tagIds: row.tagIds,
    reminderNote: row.reminderNote,
    reminderRepeatDays: row.reminderRepeatDays,
    skipMultilineEncoding: row.skipMultilineEncoding,
    version: row.version,
    actor: row.actor,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The sealed and the stored-in-clear parts of a secret's content. */
export function sealContent(cipher: ProjectCipher, secret: PlainSecret): Pick<SecretRow, "sealed" | "metadata"> {
  const encrypted = secret.metadata.filter((m) => m.isEncrypted).map((m) => m.value);
  const fields: SealedFields = [secret.key, secret.value, secret.comment, encrypted];
  return {
    sealed: cipher.seal(JSON.stringify(fields), secret.id),
    metadata: secret.metadata.map((m) => ({ key: m.key, value: m.isEncrypted ? "" : m.value, isEncrypted: m.isEncrypted })),
  };
}

/** Seals a new secret into its row (no spreads: see newSecretFrom). */
export function encodeSecret(cipher: ProjectCipher, secret: PlainSecret, scope: { projectId: string; envId: string }): SecretRow {
  const { sealed, metadata } = sealContent(cipher, secret);
  return {
    id: secret.id,
    projectId: scope.projectId,
    envId: scope.envId,
    folderId: secret.folder.id,
    keyHash: cipher.blindIndex(secret.key),
    type: secret.type,
    ownerId: secret.ownerId,
    sealed,
    metadata,
    tagIds: secret.tagIds,
    reminderNote: secret.reminderNote,
    reminderRepeatDays: secret.reminderRepeatDays,
    skipMultilineEncoding: secret.skipMultilineEncoding,
    version: secret.version,
    actor: secret.actor,
    createdAt: secret.createdAt,
    updatedAt: secret.updatedAt,
  };
}

/**
 * The version row filing a secret's state: the row's own columns, keyed by a new id. The fields
 * the state lacks come before the spread: V8 adds fields that follow a spread through a slow path.
 */
export function versionOf(row: SecretRow): SecretVersionRow {
  const { id, updatedAt, createdAt: _created, ...state } = row;
  return { id: newRowId(), secretId: id, createdAt: updatedAt, ...state };
}

/** A version row read back as the secret it was. */
export function rowOfVersion(version: SecretVersionRow, current: { createdAt: string }): SecretRow {
  const { secretId, createdAt, id: _id, ...state } = version;
  return { id: secretId, createdAt: current.createdAt, updatedAt: createdAt, ...state };
}
