/**
 * The one cache primitive: a bounded map whose entries may be served only inside a time window,
 * optionally tied to a `CacheGroup` whose version a change bumps. Insertion order is age; once
 * full, the oldest eighth goes in one pass (dropping one entry per insertion would look for the
 * oldest live entry past every slot deleted before it, which grows slower with each eviction).
 */
export interface CacheOptions {
  /** Entries kept at most. */
  readonly capacity: number;
  /** Longest an entry is served after it was read, in clock milliseconds. Default: no limit. */
  readonly ttlMs?: number;
}

interface Entry<V> {
  readonly value: V;
  readonly version: number;
  /** Clock times (ms) between which the entry may be served. */
  readonly from: number;
  readonly until: number;
}

export class BoundedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** Lookups that found a servable value, and those that did not, since the cache was made (for metrics). */
  hits = 0;
  misses = 0;

  constructor(
    readonly options: CacheOptions,
    private readonly group?: CacheGroup,
  ) {}

  /** The version a value about to be read belongs to: pass it back to `set`. */
  get version(): number {
    return this.group?.version ?? 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached value, if it was read under the current version and `now` lies in its window.
   * `maxAgeMs` narrows the window for this one look (a caller that must see changes sooner than
   * the TTL allows); an entry too old for it is left for other callers.
   */
  get(key: string, now = 0, maxAgeMs = Number.POSITIVE_INFINITY): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    // A clock set back before the read is as unknown a moment as one past the window.
    if (entry.version === this.version && now >= entry.from && now < entry.until) {
      if (now - entry.from >= maxAgeMs) {
        this.misses++;
        return undefined;
      }
      this.hits++;
      return entry.value;
    }
    this.entries.delete(key);
    this.misses++;
    return undefined;
  }

  /**
   * Keeps `value`, read under `version` at `now`, until `until` at the latest (never beyond the
   * TTL). A value read under an outdated version is not kept at all: it may predate a change.
   */
  set(key: string, value: V, options: { version?: number; now?: number; until?: number } = {}): void {
    const { version = this.version, now = 0, until = Number.POSITIVE_INFINITY } = options;
    if (version !== this.version) return;
    if (!this.entries.has(key)) makeRoom(this.entries, this.options.capacity);
    const ttl = this.options.ttlMs === undefined ? Number.POSITIVE_INFINITY : now + this.options.ttlMs;
    this.entries.set(key, { value, version, from: now, until: Math.min(until, ttl) });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * Caches read from the same tables, dropped together when those tables change. A value read
 * while a change is being written is tagged with the version before it, so once the change bumps
 * the version again at its end, that value is never served.
 */
export class CacheGroup {
  version = 0;
  private readonly members = new Set<BoundedCache<unknown>>();

  create<V>(options: CacheOptions): BoundedCache<V> {
    const cache = new BoundedCache<V>(options, this);
    this.members.add(cache as BoundedCache<unknown>);
    return cache;
  }

  changed(): void {
    this.version++;
    for (const cache of this.members) cache.clear();
  }
}

/** Makes room in a map used as a bounded cache: see `BoundedCache`. */
export function makeRoom<K, V>(map: Map<K, V>, capacity: number): void {
  if (map.size < capacity) return;
  let drop = Math.max(1, capacity >> 3);
  for (const key of map.keys()) {
    map.delete(key);
    if (--drop === 0) break;
  }
}
