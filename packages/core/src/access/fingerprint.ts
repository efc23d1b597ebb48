import { createHash } from "node:crypto";
import type { ProjectAccess } from "./project-access.js";

const fingerprints = new WeakMap<ProjectAccess, string>();

/**
 * A digest of everything an access decides with (its rules, in order): equal fingerprints decide
 * every check alike. Computed once per compiled access, which the access cache keeps.
 */
export function accessFingerprint(access: ProjectAccess): string {
  let fingerprint = fingerprints.get(access);
  if (fingerprint === undefined) {
    fingerprint = createHash("sha256").update(JSON.stringify(access.rules)).digest("base64url");
    fingerprints.set(access, fingerprint);
  }
  return fingerprint;
}
