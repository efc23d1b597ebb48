import fc from "fast-check";

// Property tests explore new inputs on every local run; in CI (CI=true) they replay one fixed
// seed so a submission's result is reproducible. FC_SEED overrides both, to replay a failure.
const seed = process.env.FC_SEED ?? (process.env.CI === "true" ? "20261122" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });

/**
 * `forEachStore` (from `@strongroom/core/testing`) runs a suite on memory, SQLite and PostgreSQL.
 * The backends are registered here without loading them: a store's package is imported when a
 * suite first opens one. PostgreSQL's availability was probed once for the run (global setup).
 */
interface LazyStore {
  name: string;
  available: boolean;
  open(): Promise<unknown>;
  cleanup(): Promise<void>;
}

function lazyStore(name: string, available: boolean, load: () => Promise<{ open(): Promise<unknown>; cleanup?(): Promise<void> }>): LazyStore {
  let store: Promise<{ open(): Promise<unknown>; cleanup?(): Promise<void> }> | undefined;
  return {
    name,
    available,
    open: async () => (await (store ??= load())).open(),
    cleanup: async () => {
      if (store) await (await store).cleanup?.();
    },
  };
}

const registry = ((globalThis as Record<symbol, LazyStore[]>)[Symbol.for("strongroom.testStores")] ??= []);
registry.push(
  lazyStore("sqlite", true, async () => (await import("@strongroom/storage-sqlite/testing")).sqliteTestStore()),
  lazyStore("postgres", process.env.STRONGROOM_TEST_POSTGRES === "available", async () =>
    (await import("@strongroom/storage-postgres/testing")).postgresTestStore(),
  ),
);
