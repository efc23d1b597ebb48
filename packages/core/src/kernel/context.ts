import type { KeyRing } from "../crypto/keyring.js";
import type { Storage } from "../storage/table.js";
import type { EventBus } from "./bus.js";
import { BoundedCache, CacheGroup, type CacheOptions } from "./cache.js";
import type { Clock } from "./clock.js";
import type { StrongroomConfig } from "./config.js";

/** Structured lines about background work (job failures, sinks). Never receives secrets. */
export type LogSink = (entry: Record<string, unknown>) => void;

/**
 * A repository: the one place an entity's queries and cascades live. Operations reach it with
 * `ctx.repo(def)`, which builds it once per context — so inside `ctx.withTransaction` the same
 * repository is bound to the transaction.
 */
export interface RepositoryDef<R> {
  readonly name: string;
  create(ctx: Context): R;
}

export const defineRepository = <R>(name: string, create: (ctx: Context) => R): RepositoryDef<R> => ({ name, create });

/**
 * A point where one area lets others act on its changes without knowing them (a folder removed →
 * the proxied services in it). Handlers are registered when the instance is assembled and run in
 * the emitter's transaction, in registration order.
 */
export interface HookDef<P> {
  readonly name: string;
  /** Phantom: the payload's type. */
  readonly __payload?: P;
}

export const defineHook = <P>(name: string): HookDef<P> => ({ name });

export type HookHandler<P> = (ctx: Context, payload: P) => Promise<void>;

export class HookRegistry {
  private readonly handlers = new Map<HookDef<unknown>, HookHandler<unknown>[]>();

  on<P>(hook: HookDef<P>, handler: HookHandler<P>): this {
    const list = this.handlers.get(hook as HookDef<unknown>) ?? [];
    list.push(handler as HookHandler<unknown>);
    this.handlers.set(hook as HookDef<unknown>, list);
    return this;
  }

  handlersOf<P>(hook: HookDef<P>): readonly HookHandler<P>[] {
    return (this.handlers.get(hook as HookDef<unknown>) ?? []) as HookHandler<P>[];
  }
}

/** A cache an area declares; `ctx.caches.get(spec)` gives this instance's one. */
export interface CacheSpec<V> extends CacheOptions {
  readonly name: string;
  /**
   * Read from tables that decide who may do what: dropped whenever one of them changes (see
   * `CacheSet.access`), and never served past `ttlMs`, which bounds how late a change another
   * node made is seen.
   */
  readonly dependsOnAccess?: boolean;
  /** Phantom: the value type. */
  readonly __value?: V;
}

export const defineCache = <V>(spec: Omit<CacheSpec<V>, "__value">): CacheSpec<V> => spec;

export interface CacheStats {
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
}

/** The caches of one instance, all visible here. */
export class CacheSet {
  /** Bumped whenever a table access decisions are read from changes (the assembly watches their writes). */
  readonly access = new CacheGroup();
  private readonly byName = new Map<string, BoundedCache<unknown>>();

  get<V>(spec: CacheSpec<V>): BoundedCache<V> {
    let cache = this.byName.get(spec.name);
    if (!cache) {
      cache = spec.dependsOnAccess ? this.access.create(spec) : new BoundedCache(spec);
      this.byName.set(spec.name, cache);
    }
    return cache as BoundedCache<V>;
  }

  /** Every cache by name, with its size: for metrics and tests. */
  sizes(): Record<string, number> {
    return Object.fromEntries([...this.byName].map(([name, cache]) => [name, cache.size]));
  }

  /** Every cache by name: entries held, and lookups that hit and missed since it was made (for metrics). */
  stats(): Record<string, CacheStats> {
    return Object.fromEntries([...this.byName].map(([name, cache]) => [name, { size: cache.size, hits: cache.hits, misses: cache.misses }]));
  }
}

/** Something an instance holds exactly one of (the open event subscriptions, scans under way). */
export interface ServiceDef<T> {
  readonly name: string;
  create(ctx: Context): T;
}

export const defineService = <T>(name: string, create: (ctx: Context) => T): ServiceDef<T> => ({ name, create });

/** What every operation runs with. Built once by `createStrongroom`; transactions derive their own. */
export interface Context {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly keys: KeyRing;
  readonly config: StrongroomConfig;
  readonly log: LogSink;
  readonly caches: CacheSet;
  readonly inTransaction: boolean;
  repo<R>(def: RepositoryDef<R>): R;
  service<T>(def: ServiceDef<T>): T;
  /** Runs every handler registered for `hook`, with this context (and so its transaction). */
  emit<P>(hook: HookDef<P>, payload: P): Promise<void>;
  /**
   * Runs `fn` in one transaction with a context bound to it: its repositories write inside the
   * transaction, and what they ask to run after the commit runs once it has committed. Inside a
   * transaction already, `fn` joins it. `fn` may run more than once (see `Storage.transaction`):
   * what it does beyond the storage belongs in `afterCommit`.
   */
  withTransaction<T>(fn: (tx: Context) => Promise<T>): Promise<T>;
  /** Runs `fn` once the surrounding transaction commits (at once outside a transaction). */
  afterCommit(fn: () => void): void;
  /**
   * A context for one operation call whose top-level transactions run `beforeCommit` with the
   * transaction's context and what `fn` returned, after `fn` and before the commit: how the audit
   * log writes a change's entry in the change's own transaction (a failing insert rolls the change
   * back), naming what the change created.
   */
  withBeforeCommit(beforeCommit: BeforeCommit): Context;
}

export type BeforeCommit = (tx: Context, value: unknown) => Promise<void>;

export interface ContextParts {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly keys: KeyRing;
  readonly config: StrongroomConfig;
  readonly log: LogSink;
  readonly hooks: HookRegistry;
}

interface Shared extends ContextParts {
  readonly caches: CacheSet;
  readonly services: Map<ServiceDef<unknown>, unknown>;
  root?: Context;
}

export function createContext(parts: ContextParts): Context {
  const shared: Shared = { ...parts, caches: new CacheSet(), services: new Map() };
  const root = contextOver(shared, parts.storage, undefined);
  shared.root = root;
  return root;
}

function contextOver(
  shared: Shared,
  storage: Storage,
  commitQueue: (() => void)[] | undefined,
  beforeCommit?: BeforeCommit,
): Context {
  const repos = new Map<RepositoryDef<unknown>, unknown>();
  const ctx: Context = {
    storage,
    clock: shared.clock,
    bus: shared.bus,
    keys: shared.keys,
    config: shared.config,
    log: shared.log,
    caches: shared.caches,
    inTransaction: commitQueue !== undefined,
    repo<R>(def: RepositoryDef<R>): R {
      let repo = repos.get(def as RepositoryDef<unknown>) as R | undefined;
      if (repo === undefined) {
        repo = def.create(ctx);
        repos.set(def as RepositoryDef<unknown>, repo);
      }
      return repo;
    },
    service<T>(def: ServiceDef<T>): T {
      let service = shared.services.get(def as ServiceDef<unknown>) as T | undefined;
      if (service === undefined) {
        service = def.create(shared.root ?? ctx);
        shared.services.set(def as ServiceDef<unknown>, service);
      }
      return service;
    },
    async emit(hook, payload) {
      for (const handler of shared.hooks.handlersOf(hook)) await handler(ctx, payload);
    },
    async withTransaction(fn) {
      if (commitQueue) return fn(ctx);
      // Per attempt: a transaction the database aborted for a conflict runs `fn` again.
      let committed: (() => void)[] = [];
      const result = await storage.transaction(async (txStorage) => {
        committed = [];
        const tx = contextOver(shared, txStorage, committed);
        const value = await fn(tx);
        if (beforeCommit) await beforeCommit(tx, value);
        return value;
      });
      for (const run of committed) run();
      return result;
    },
    afterCommit(fn) {
      if (commitQueue) commitQueue.push(fn);
      else fn();
    },
    withBeforeCommit(hook) {
      return commitQueue ? ctx : contextOver(shared, storage, undefined, hook);
    },
  };
  return ctx;
}
