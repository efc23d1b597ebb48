import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/**
 * Key management for `kms` projects, on Infisical's paths (what `@infisical/sdk`'s `kms()` client
 * calls): keys, then what a key does — encrypt, decrypt, sign, verify, MAC — without leaving.
 */
const keys = "/api/v1/kms/keys";
const key = `${keys}/{keyId}`;
const kms = operations.kms;

export const kmsRoutes: readonly Route[] = [
  post(keys, kms.createKey),
  get(keys, kms.listKeys),
  get(`${keys}/key-name/{keyName}`, kms.getKeyByName),
  get(key, kms.getKey),
  patch(key, kms.updateKey),
  del(key, kms.deleteKey),
  post(`${key}/rotate`, kms.rotateKey),

  post(`${key}/encrypt`, kms.encrypt),
  post(`${key}/decrypt`, kms.decrypt),
  post(`${key}/sign`, kms.sign),
  post(`${key}/verify`, kms.verify),
  get(`${key}/public-key`, kms.publicKey),
  get(`${key}/signing-algorithms`, kms.signingAlgorithms),
  post(`${key}/generate-mac`, kms.generateMac),
  post(`${key}/verify-mac`, kms.verifyMac),
];
