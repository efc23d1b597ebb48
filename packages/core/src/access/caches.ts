/**
 * Longest time a cached token, project access or environment is served without reading storage
 * again. It bounds how late this node sees a change made elsewhere: by another node sharing the
 * database, or by code writing to storage directly. Changes made through this instance's storage
 * take effect at once (the assembly drops these caches on every write to an access-deciding table).
 */
export const ACCESS_CACHE_TTL_MS = 2_000;

/** Entries per access cache; the oldest go first. Bounds memory however many tokens and projects are in use. */
export const ACCESS_CACHE_CAPACITY = 10_000;
