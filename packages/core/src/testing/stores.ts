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

const registered: TestStore[] = [memoryStore];

/** Adds a backend to `forEachStore` (from a test setup file); registering a name again replaces it. */
export function registerTestStore(store: TestStore): void {
  const at = registered.findIndex((s) => s.name === store.name);
  if (at >= 0) registered[at] = store;
  else registered.push(store);
}

export const testStores = (): readonly TestStore[] => registered;

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
  for (const store of registered.filter((s) => !options.only || options.only.includes(s.name))) {
    describe.skipIf(!store.available)(`${title} on ${store.name}`, () => {
      afterAll(() => store.cleanup?.());
      suite(store);
    });
  }
}
