import { defineTable, text, timestamp, type RowOf } from "../storage/columns.js";

/** The data keys and the root-key check. */

/** Data keys, each wrapped (AES-256-GCM) by the root key. */
export const kmsKeys = defineTable(
  "kms_keys",
  {
    id: text(),
    orgId: text().null(),
    projectId: text().null(),
    purpose: text(),
    wrappedKey: text(),
    createdAt: timestamp(),
  },
  { indexes: [["projectId"], ["orgId"]] },
);

/** One row per instance: proves at start-up that the configured root key is the one that wrapped the data keys. */
export const instanceMeta = defineTable("instance_meta", {
  id: text(),
  rootKeyCheck: text(),
  createdAt: timestamp(),
});

/**
 * A project's secret-manager data-key rotation under way (`strongroom rotate-data-keys`): until
 * the row is gone, rows sealed under either key are read, and names are looked up under both.
 */
export const dataKeyRotations = defineTable(
  "data_key_rotations",
  {
    /** The project's id: one rotation per project at a time. */
    id: text(),
    /** The secret-manager data keys, old and new. */
    fromKeyId: text(),
    toKeyId: text(),
    /** The certificate data keys, old and new. */
    certFromKeyId: text(),
    certToKeyId: text(),
    /** `announced` (the new key is known, not yet used), `switched` (the project seals with it), `sweeping`. */
    phase: text(),
    startedAt: timestamp(),
    updatedAt: timestamp(),
  },
  { since: 4 },
);

export const keyTables = { kmsKeys, instanceMeta, dataKeyRotations };

export type DataKeyRow = RowOf<typeof kmsKeys>;
/** A row of one of the key tables, by key. */
export type KeyRow<N extends keyof typeof keyTables> = RowOf<(typeof keyTables)[N]>;
