import type { CachedToken } from "../tenancy/auth/authenticate.js";
import type { Context } from "../kernel/context.js";
import type { EnvironmentRow } from "../secret-manager/environments/lookup.js";
import { makeRoom } from "../kernel/cache.js";
import type { ProjectAccess } from "./project-access.js";

/**
 * Longest time a cached token or project access is served without reading storage again. It
 * bounds how late this node sees a change made elsewhere: by another node sharing the database,
 * or by code writing to storage directly rather than through an operation. Changes made by an
 * operation of this instance take effect at once (see `AccessCaches.changed`).
 */
export const ACCESS_CACHE_TTL_MS = 2_000;

/** Entries per cache; the oldest go first. Bounds memory however many tokens and projects are in use. */
const CAPACITY = 10_000;

interface Entry<T> {
  readonly value: T;
  readonly version: number;
  /** Clock times (ms) between which the entry may be served. */
  readonly from: number;
  readonly until: number;
}

/**
 * Values read from storage for access decisions, each tagged with the instance's access version
 * at the moment its reads began. An entry whose version is no longer current is never served, so
 * a value read while a change was being written is dropped once that write completes.
 */
export class VersionedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly owner: AccessCaches) {}

  /** The cached value, if it was read under the current version and `now` lies in its window. */
  get(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // A clock set back before the read is as unknown a moment as one past the window.
    if (entry.version === this.owner.version && now >= entry.from && now < entry.until) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Keeps `value`, read from storage under `version` at `now`, until `until` at the latest (never
   * beyond the TTL). A value read under an outdated version is not kept at all.
   */
  set(key: string, value: T, version: number, now: number, until = Number.POSITIVE_INFINITY): void {
    if (version !== this.owner.version) return;
    if (!this.entries.has(key)) makeRoom(this.entries, CAPACITY);
    this.entries.set(key, { value, version, from: now, until: Math.min(until, now + ACCESS_CACHE_TTL_MS) });
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The access caches of one Strongroom instance: resolved tokens and per-(actor, project) access. */
export class AccessCaches {
  /** Bumped by every change that may touch access (see operation.ts); entries of older versions are dead. */
  version = 0;
  /** By token hash. */
  readonly tokens = new VersionedCache<CachedToken>(this);
  /** By actor and project reference (see project-access.ts). */
  readonly projects = new VersionedCache<ProjectAccess>(this);
  /** Live environments by project id and slug (see secrets/scope.ts). */
  readonly environments = new VersionedCache<EnvironmentRow>(this);

  /** Called as any operation that may change what access is decided on starts, and again as it ends. */
  changed(): void {
    this.version++;
    this.tokens.clear();
    this.projects.clear();
    this.environments.clear();
  }
}

const instances = new WeakMap<Context, AccessCaches>();

/** The caches of the instance `ctx` belongs to. */
export function accessCaches(ctx: Context): AccessCaches {
  let caches = instances.get(ctx);
  if (!caches) instances.set(ctx, (caches = new AccessCaches()));
  return caches;
}
