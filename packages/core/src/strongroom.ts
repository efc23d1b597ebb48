import type { Actor } from "./kernel/actor.js";
import { systemClock, type Clock } from "./kernel/clock.js";
import { resolveConfig, type StrongroomConfig } from "./kernel/config.js";
import type { Context } from "./kernel/context.js";
import { KeyRing, parseRootKey } from "./crypto/keyring.js";
import { createLocalBus, type EventBus } from "./kernel/bus.js";
import { bindOperation, type OperationDef, type OperationFn } from "./kernel/operation.js";
import { areas, type Areas } from "./operations.js";
import type { Storage } from "./storage/table.js";
import { authenticate } from "./tenancy/auth/authenticate.js";
import { createScheduler, scheduledJobs, type Scheduler } from "./jobs/index.js";
import { subscriptionsOf } from "./events/registry.js";
import { settleBackgroundScans } from "./cert-manager/discovery/scan.js";

export interface StrongroomOptions {
  storage: Storage;
  /** 32 bytes, raw or base64. Wraps every data key. */
  rootKey: string | Buffer;
  clock?: Clock;
  bus?: EventBus;
  config?: Partial<StrongroomConfig>;
  /** Structured log sink for background work (job failures). Never receives secrets. Default: JSON lines on stderr. */
  log?: (entry: Record<string, unknown>) => void;
}

type AreaApi<A> = { [O in keyof A]: OperationFn<A[O]> };

export type Strongroom = { [A in keyof Areas]: AreaApi<Areas[A]> } & {
  /** Every operation by `area.name`, for adapters (routes, OpenAPI). */
  readonly operations: Readonly<Record<string, OperationDef>>;
  /** Calls an operation by name: validates the input against its schema and checks the audience. */
  invoke(name: string, actor: Actor, input: unknown): Promise<unknown>;
  /** Resolves a bearer token (without the `Bearer ` prefix) to an actor; no token → anonymous. */
  authenticate(token: string | undefined): Promise<Actor>;
  readonly context: Context;
  /** Periodic jobs. Servers call `scheduler.start()`; tests call `scheduler.runDue()` with a manual clock. */
  readonly scheduler: Scheduler;
  /** Stops background work and closes the bus and the storage. */
  close(): Promise<void>;
};

export async function createStrongroom(options: StrongroomOptions): Promise<Strongroom> {
  const clock = options.clock ?? systemClock;
  const keys = new KeyRing(parseRootKey(options.rootKey));
  await keys.verify(options.storage, clock.now());
  const ctx: Context = {
    storage: options.storage,
    clock,
    bus: options.bus ?? createLocalBus(),
    keys,
    config: resolveConfig(options.config),
  };

  const operations: Record<string, OperationDef> = {};
  const bound: Record<string, (actor: Actor, input: unknown) => Promise<unknown>> = {};
  const api: Record<string, Record<string, unknown>> = {};
  for (const [areaName, area] of Object.entries(areas)) {
    api[areaName] = {};
    for (const [opName, def] of Object.entries(area as Record<string, OperationDef>)) {
      const fullName = `${areaName}.${opName}`;
      const fn = bindOperation(ctx, def) as (actor: Actor, input: unknown) => Promise<unknown>;
      operations[fullName] = def;
      bound[fullName] = fn;
      api[areaName][opName] = fn;
    }
  }

  const log = options.log ?? ((entry) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`));
  const scheduler = createScheduler(ctx, scheduledJobs, (job, error) =>
    log({ level: "error", msg: "scheduled job failed", job, error: error instanceof Error ? error.message : String(error) }),
  );

  let closed = false;
  return {
    ...(api as { [A in keyof Areas]: AreaApi<Areas[A]> }),
    operations,
    context: ctx,
    scheduler,
    async invoke(name, actor, input) {
      const fn = bound[name];
      if (!fn) throw new Error(`unknown operation ${name}`);
      return fn(actor, input);
    },
    authenticate: (token) => authenticate(ctx, token),
    async close() {
      if (closed) return;
      closed = true;
      await scheduler.stop();
      // a discovery scan still running would otherwise lose its final write
      await settleBackgroundScans(ctx);
      // ends embedded `for await` consumers too; HTTP streams are ended by the adapter's shutdown
      subscriptionsOf(ctx).endAll();
      await ctx.bus.close();
      await ctx.storage.close();
    },
  };
}
