import { afterAll, describe } from "vitest";
import { createMemoryStorage, type StrongroomStorage } from "../entries/storage.js";

/**
 * A kind of store tests can run on. Core knows only the memory store; the storage packages offer
 * theirs (`@strongroom/storage-sqlite/testing`, `@strongroom/storage-postgres/testing`) and the
 * test setup registers them, so one `forEachStore` runs a suite on every backend there is.
 */
export interface TestStore {
  readonly name: string;
  /** False when the backend cannot be reached here (no database server): its suites are skipped. */
  readonly available: boolean;
  /** A fresh, empty store of Strongroom's tables. */
  open(): Promise<StrongroomStorage>;
  /** Removes what `open` created (files, databases) once the suites are done. */
  cleanup?(): Promise<void>;
}

export const memoryStore: TestStore = {
  name: "memory",
  available: true,
  open: async () => createMemoryStorage(),
};

// Kept on the global object under a registered symbol, so a test setup file can register backends
// without loading core (it runs before every test file; loading core there would cost each file).
const REGISTRY = Symbol.for("strongroom.testStores");
const registry = (): TestStore[] => ((globalThis as Record<symbol, TestStore[]>)[REGISTRY] ??= []);

/** Adds a backend to `forEachStore` (from a test setup file); registering a name again replaces it. */
export function registerTestStore(store: TestStore): void {
  const list = registry();
  const at = list.findIndex((s) => s.name === store.name);
  if (at >= 0) list[at] = store;
  else list.push(store);
}

export const testStores = (): readonly TestStore[] => [memoryStore, ...registry().filter((s) => s.name !== memoryStore.name)];

export interface ForEachStoreOptions {
  /** Only these backends (by name); default every registered one. */
  only?: readonly string[];
}

/**
 * Runs `suite` once per registered store, each in its own `describe` named after the store; a
 * store that cannot be reached here skips its suite visibly (a store's package decides whether
 * that is allowed: in CI PostgreSQL must answer).
 */
export function forEachStore(title: string, suite: (store: TestStore) => void, options: ForEachStoreOptions = {}): void {
  for (const store of testStores().filter((s) => !options.only || options.only.includes(s.name))) {
    describe.skipIf(!store.available)(`${title} on ${store.name}`, () => {
      afterAll(() => store.cleanup?.());
      suite(store);
    });
  }
}
