import { boolean, defineTable, integer, json, text, timestamp, type RowOf } from "../storage/columns.js";

/**
 * Tables of the secret manager; spread into the assembled schema (schema.ts). Environments are
 * declared by access (access/tables.ts), which reads them for scopes; the secret manager writes them.
 *
 * A secret's name, value, comment and encrypted metadata values are stored only inside `sealed`:
 * one AES-256-GCM seal (`iv.tag.ciphertext`, see crypto/aead.ts) under the project's data key,
 * bound to the secret's id. One seal per secret rather than one per field keeps writes and reads
 * of large batches cheap. A name is found through `keyHash`, an HMAC blind index. An
 * environment's root folder is not a row: its id is the environment's id, so every environment
 * has a root without a write.
 */

/** Folders below an environment's root; `path` is the normalised full path (`/a/b`). */
export const secretFolders = defineTable(
  "secret_folders",
  {
    id: text(),
    projectId: text(),
    envId: text(),
    /** The parent folder's id; the environment's id for top-level folders. */
    parentId: text(),
    name: text(),
    path: text(),
    description: text().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["envId", "path"]], indexes: [["parentId"]] },
);

/** Who made a secret's latest change, as SPEC.md's batch-update `actor` shows it. */
export interface SecretActor {
  actorId: string;
  actorType: string;
  name: string;
  membershipId: string | null;
}

/** A metadata item; an encrypted item's value lives in the secret's seal and is blank here. */
export interface StoredMetadata {
  key: string;
  value: string;
  isEncrypted: boolean;
}

/** Columns a secret and each of its versions share, so a version is a snapshot of the row. */
const secretState = {
  projectId: text(),
  envId: text(),
  folderId: text(),
  keyHash: text(),
  /** `shared` or `personal`. */
  type: text(),
  /** The owner's user or identity id for personal overrides; empty for shared secrets, so uniqueness holds. */
  ownerId: text(),
  sealed: text(),
  metadata: json<StoredMetadata[]>(),
  tagIds: json<string[]>(),
  reminderNote: text().null(),
  reminderRepeatDays: integer().null(),
  skipMultilineEncoding: boolean(),
  version: integer(),
  actor: json<SecretActor>().null(),
};

export const secrets = defineTable(
  "secrets",
  { id: text(), ...secretState, createdAt: timestamp(), updatedAt: timestamp() },
  { unique: [["folderId", "keyHash", "type", "ownerId"]], indexes: [["projectId"]] },
);

/**
 * Every earlier state of a secret: an update files the state it replaces, a delete the last one.
 * The current state is the `secrets` row itself.
 */
export const secretVersions = defineTable(
  "secret_versions",
  { id: text(), secretId: text(), ...secretState, createdAt: timestamp() },
  { unique: [["secretId", "version"]] },
);

export const secretTags = defineTable(
  "secret_tags",
  {
    id: text(),
    projectId: text(),
    slug: text(),
    name: text(),
    color: text(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "slug"]] },
);

/** A folder (`folderId` in `envId`) that shows the secrets of another environment and path of its project. */
export const secretImports = defineTable(
  "secret_imports",
  {
    id: text(),
    projectId: text(),
    envId: text(),
    folderId: text(),
    importEnvId: text(),
    importPath: text(),
    position: integer(),
    isReplication: boolean(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["folderId", "importEnvId", "importPath"]], indexes: [["importEnvId", "importPath"]] },
);

/**
 * One row per project whose secrets were ever written: `stamp` changes in the same transaction as
 * every write to its secrets, folders, imports, tags or environments (stamps.ts), so an unchanged
 * stamp proves a list answer unchanged without reading it.
 */
export const secretStamps = defineTable("secret_stamps", { id: text(), stamp: text() }, { since: 5 });

export const secretTables = { secretFolders, secrets, secretVersions, secretTags, secretImports, secretStamps };

export type FolderRow = RowOf<typeof secretFolders>;
export type SecretRow = RowOf<typeof secrets>;
export type SecretVersionRow = RowOf<typeof secretVersions>;
export type TagRow = RowOf<typeof secretTags>;
export type SecretImportRow = RowOf<typeof secretImports>;
export type SecretStampRow = RowOf<typeof secretStamps>;
