import { ACCESS_DECIDING_TABLES } from "./access/tables.js";
import type { AuditControl } from "./audit/api.js";
import { auditControl } from "./audit/control.js";
import { auditLogService, type AuditQueueOptions } from "./audit/log.js";
import { auditObserver, draftOf } from "./audit/observer.js";
import { settleBackgroundScans } from "./cert-manager/discovery/scan.js";
import { useCertManagerPorts } from "./cert-manager/io.js";
import type { CertManagerPorts } from "./cert-manager/ports.js";
import { KeyRing, parseRootKey } from "./crypto/keyring.js";
import type { DynamicSecretProvider } from "./dynamic-secrets/ports.js";
import { useDynamicSecretProviders } from "./dynamic-secrets/providers.js";
import { subscriptionsOf } from "./events/registry.js";
import { registerHooks } from "./hooks.js";
import { scheduledJobs } from "./jobs.js";
import { createScheduler, type Scheduler } from "./jobs/scheduler.js";
import type { Actor, RequestContext } from "./kernel/actor.js";
import { createLocalBus, type EventBus } from "./kernel/bus.js";
import { systemClock, type Clock } from "./kernel/clock.js";
import { resolveConfig, type StrongroomConfig } from "./kernel/config.js";
import { createContext, HookRegistry, type Context, type LogSink } from "./kernel/context.js";
import { bindOperation, type NotModified, type OperationDef, type OperationFn, type Revalidation } from "./kernel/operation.js";
import { operations, type Operations } from "./operations.js";
import type { StrongroomSchema } from "./schema.js";
import { moveSecretStamps, STAMPED_TABLES } from "./secret-manager/stamps.js";
import { observeWrites } from "./storage/observe.js";
import { stampWrites } from "./storage/stamp.js";
import type { Storage } from "./storage/table.js";
import { authenticate } from "./tenancy/auth/authenticate.js";

export interface StrongroomOptions {
  /** Where everything is kept: `createSqliteStorage`, `createPostgresStorage`, or `createMemoryStorage` for tests. */
  storage: Storage<StrongroomSchema>;
  /** 32 bytes, raw or base64. Wraps every data key; keep it, or nothing stored can be read again. */
  rootKey: string | Buffer;
  clock?: Clock;
  /** How events reach subscribers; several nodes on PostgreSQL share `createPostgresBus`. */
  bus?: EventBus;
  config?: Partial<StrongroomConfig>;
  /** Structured log sink for background work (job failures). Never receives secrets. Default: JSON lines on stderr. */
  log?: LogSink;
  /**
   * Where the certificate manager's I/O goes: alert e-mail (`mail`), alert webhooks (`webhooks`),
   * discovery handshakes (`tls`). Default: Node's (nodemailer over `config.smtpUrl`, node:https,
   * node:tls); tests and embedders replace any of them.
   */
  certManager?: Partial<CertManagerPorts>;
  /**
   * The dynamic-secret providers this instance offers (`dynamicSecretProviders` of
   * `@strongroom/dynamic-secrets`: sql-database, redis). Default none: creating a dynamic secret
   * is then refused with a 400 naming the missing provider.
   */
  dynamicSecretProviders?: readonly DynamicSecretProvider[];
  /**
   * The audit log (on by default): `false` records nothing (benchmarks compare both). `queue`
   * bounds the read-entry queue: flushed every `flushIntervalMs` (100) or at `batchSize` (1,000)
   * entries; past `capacity` (10,000) waiting entries new calls are refused with 503.
   */
  audit?: false | { queue?: Partial<AuditQueueOptions> };
}

type AreaApi<A> = { [O in keyof A]: OperationFn<A[O]> };

/** Any operation of the registry: what `call` and the adapters accept. */
export type AnyOperation = OperationDef<any, any, any>;

export type Strongroom = { [A in Exclude<keyof Operations, "audit">]: AreaApi<Operations[A]> } & {
  /** The audit log: `query` and `head` (as served over HTTP) and what only an embedder holds (`verify`, `addSink`, …). */
  readonly audit: AreaApi<Operations["audit"]> & AuditControl;
  /** Every operation definition by area and name, for adapters (routes, OpenAPI). */
  readonly operations: Operations;
  /** Calls an operation by its definition: validates the input against its schema, checks the audience, runs it. */
  call<D extends AnyOperation>(operation: D, actor: Actor, input: unknown): Promise<Awaited<ReturnType<OperationFn<D>>>>;
  /**
   * A conditional call: for an operation with revisions, when `revalidation.holds` the current
   * one, resolves to NOT_MODIFIED without making the answer; `revalidation.revision` is set either way.
   */
  call<D extends AnyOperation>(operation: D, actor: Actor, input: unknown, revalidation: Revalidation): Promise<Awaited<ReturnType<OperationFn<D>>> | NotModified>;
  /**
   * Resolves a bearer token (without the `Bearer ` prefix) to an actor; no token → anonymous.
   * `request` (where the call came from) is checked against the token's trusted IPs and kept on
   * the actor for the operations (lockouts, audit).
   */
  authenticate(token: string | undefined, request?: RequestContext): Promise<Actor>;
  readonly context: Context;
  /** Periodic jobs. Servers call `scheduler.start()`; tests call `scheduler.runDue()` with a manual clock. */
  readonly scheduler: Scheduler;
  /** Stops background work and closes the bus and the storage. */
  close(): Promise<void>;
};

/**
 * Creates a Strongroom instance over a storage: every operation, grouped by area, as typed async
 * functions `(actor, input) => output`, plus the scheduler for periodic jobs.
 *
 * @example
 * ```ts
 * import { createStrongroom } from "@strongroom/core";
 * import { createSqliteStorage } from "@strongroom/storage-sqlite";
 *
 * const strongroom = await createStrongroom({
 *   storage: await createSqliteStorage({ filename: "./strongroom.db" }),
 *   rootKey: process.env.STRONGROOM_ROOT_KEY!, // 32 bytes, base64; the same key on every start
 * });
 * const actor = await strongroom.authenticate(token);
 * const { secret } = await strongroom.secrets.get(actor, { projectId, environment: "prod", secretName: "DB_URL" });
 * ```
 */
/** How long access-change notices to other nodes are coalesced: well inside the 2 s access bound. */
const ACCESS_NOTICE_DELAY_MS = 50;

export async function createStrongroom(options: StrongroomOptions): Promise<Strongroom> {
  const clock = options.clock ?? systemClock;
  const keys = new KeyRing(parseRootKey(options.rootKey));
  await keys.verify(options.storage, clock.now());
  const log: LogSink =
    options.log ?? ((entry) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`));
  // Any write to a table access is decided on drops the access caches: this node applies it at once.
  let dropAccessCaches = () => {};
  // Writes to what secret lists are read from move their project's stamp in the same transaction (list ETags).
  const stamped = stampWrites(options.storage, STAMPED_TABLES, "projectId", moveSecretStamps);
  const storage = observeWrites(stamped, ACCESS_DECIDING_TABLES, () => dropAccessCaches());
  const ctx = createContext({
    storage,
    clock,
    bus: options.bus ?? createLocalBus(),
    keys,
    config: resolveConfig(options.config),
    log,
    hooks: registerHooks(new HookRegistry()),
  });
  // Other nodes are told too (through a relay that offers it), after the change has committed:
  // notices are coalesced over a short delay, and a transaction's last one follows its commit.
  let announcing: ReturnType<typeof setTimeout> | undefined;
  const announce = ctx.bus.announceAccessChange?.bind(ctx.bus);
  dropAccessCaches = () => {
    ctx.caches.access.changed();
    if (announce && !announcing) {
      announcing = setTimeout(() => {
        announcing = undefined;
        announce();
      }, ACCESS_NOTICE_DELAY_MS);
      announcing.unref?.();
    }
  };
  const stopHearingAccessChanges = ctx.bus.onAccessChange?.(() => ctx.caches.access.changed());
  if (options.certManager) useCertManagerPorts(ctx, options.certManager);
  if (options.dynamicSecretProviders) useDynamicSecretProviders(ctx, options.dynamicSecretProviders);

  const auditLog = ctx.service(auditLogService);
  await auditLog.start(options.audit ? options.audit.queue : {}, options.audit !== false);
  const observer = options.audit === false ? undefined : auditObserver(auditLog, clock);

  const bound = new Map<AnyOperation, (actor: Actor, input: unknown, revalidation?: Revalidation) => Promise<unknown>>();
  const api: Record<string, Record<string, unknown>> = {};
  for (const [areaName, area] of Object.entries(operations)) {
    api[areaName] = {};
    for (const [opName, def] of Object.entries(area as Record<string, AnyOperation>)) {
      const fn = bindOperation(ctx, def, { key: `${areaName}.${opName}`, observer }) as (actor: Actor, input: unknown, revalidation?: Revalidation) => Promise<unknown>;
      bound.set(def, fn);
      // The area API takes no revalidation: it always answers.
      api[areaName][opName] = (actor: Actor, input: unknown) => fn(actor, input);
    }
  }

  const scheduler = createScheduler(ctx, scheduledJobs, (job, error) =>
    log({ level: "error", msg: "scheduled job failed", job, error: error instanceof Error ? error.message : String(error) }),
  );

  Object.assign(api.audit, auditControl(ctx, auditLog));

  let closed = false;
  return {
    ...(api as unknown as Omit<Strongroom, "operations" | "context" | "scheduler" | "call" | "authenticate" | "close">),
    operations,
    context: ctx,
    scheduler,
    call(operation: AnyOperation, actor: Actor, input: unknown, revalidation?: Revalidation) {
      const fn = bound.get(operation);
      if (!fn) return Promise.reject(new Error(`operation ${operation.name} is not one of this instance's`));
      return fn(actor, input, revalidation) as never;
    },
    async authenticate(token, request) {
      try {
        return await authenticate(ctx, token, request);
      } catch (error) {
        // A token refused before any operation runs is recorded here: the request's one entry.
        if (observer) auditLog.enqueue(draftOf("authenticate-token", { type: "anonymous", request }, clock.now(), {}, undefined, error, undefined));
        throw error;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await scheduler.stop();
      await auditLog.close();
      // a discovery scan still running would otherwise lose its final write
      await settleBackgroundScans(ctx);
      // ends embedded `for await` consumers too; HTTP streams are ended by the adapter's shutdown
      subscriptionsOf(ctx).endAll();
      stopHearingAccessChanges?.();
      if (announcing) {
        clearTimeout(announcing);
        announcing = undefined;
        announce?.();
      }
      await ctx.bus.close();
      await ctx.storage.close();
    },
  };
}
