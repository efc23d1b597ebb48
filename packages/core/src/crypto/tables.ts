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

export const keyTables = { kmsKeys, instanceMeta };

export type DataKeyRow = RowOf<typeof kmsKeys>;
/** A row of one of the key tables, by key. */
export type KeyRow<N extends keyof typeof keyTables> = RowOf<(typeof keyTables)[N]>;
