import { createHmac, timingSafeEqual } from "node:crypto";
import type { HashName } from "./catalogue.js";

export const generateMac = (hash: HashName, key: Buffer, data: Buffer): Buffer => createHmac(hash, key).update(data).digest();

/** Constant-time in the MAC's bytes: a caller learns nothing from how long a wrong MAC takes to refuse. */
export function macMatches(hash: HashName, key: Buffer, data: Buffer, mac: Buffer): boolean {
  const expected = generateMac(hash, key, data);
  // Lengths are public (fixed per algorithm); comparing them first leaks nothing secret.
  return mac.length === expected.length && timingSafeEqual(mac, expected);
}
