import type * as tldts from "tldts";
import { lazyModule } from "../kernel/lazy-module.js";

const list = lazyModule<typeof tldts>("tldts");

/**
 * Whether `name` (canonical: lower case, IDN as punycode) is itself a public suffix of the ICANN
 * section of the Public Suffix List (`com`, `co.uk`, `k12.ak.us`, `foo.ck` under `*.ck`):
 * a name under which anyone may register their own domain. Suffixes of the list's private
 * section (`github.io`) and names the list does not know (`internal`, `corp`) are not.
 *
 * The list is the one `tldts` ships, kept current by its releases; no network access.
 */
export function isIcannPublicSuffix(name: string): boolean {
  const parsed = list().parse(name, { allowPrivateDomains: false, extractHostname: false, validateHostname: false });
  return parsed.isIcann === true && parsed.publicSuffix === name;
}
