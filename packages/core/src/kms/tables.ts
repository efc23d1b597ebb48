import { boolean, defineTable, integer, text, timestamp, type RowOf } from "../storage/columns.js";

/**
 * Customer-managed keys of `kms` projects (Infisical calls them CMEKs). Named apart from
 * `kms_keys`, which holds the instance's data keys. Both tables arrived with schema version 2.
 */
const SINCE = 2;

/** A key as users see it; its material lives in its versions. */
export const cmekKeys = defineTable(
  "cmek_keys",
  {
    id: text(),
    orgId: text(),
    projectId: text(),
    name: text(),
    description: text(),
    keyUsage: text(),
    algorithm: text(),
    /** The primary version: new ciphertexts, signatures and MACs are made with it. */
    version: integer(),
    isDisabled: boolean(),
    rotationIntervalDays: integer().null(),
    nextRotationAt: timestamp().null(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  },
  { unique: [["projectId", "name"]], indexes: [["projectId"], ["nextRotationAt"]], since: SINCE },
);

/**
 * One row per version of a key: the material sealed under a data key of the project (which one
 * is recorded, so a rewrap can find what it must re-seal), and for asymmetric keys the public key.
 */
export const cmekKeyVersions = defineTable(
  "cmek_key_versions",
  {
    id: text(),
    keyId: text(),
    projectId: text(),
    version: integer(),
    sealedMaterial: text(),
    sealedWith: text(),
    publicKeyPem: text().null(),
    createdAt: timestamp(),
  },
  { unique: [["keyId", "version"]], indexes: [["projectId"], ["sealedWith"]], since: SINCE },
);

export const kmsTables = { cmekKeys, cmekKeyVersions };

export type CmekKeyRow = RowOf<typeof cmekKeys>;
export type CmekKeyVersionRow = RowOf<typeof cmekKeyVersions>;
