import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A dependency loaded when first used instead of when Strongroom is: ASN.1 parsing, elliptic-curve
 * digest signing, the public suffix list and SMTP are each needed by a few operations, and loading
 * them all at start made the server slower to answer its first request and larger while idle.
 * The package must offer a CommonJS entry.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
