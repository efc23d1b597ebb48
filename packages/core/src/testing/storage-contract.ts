import { afterEach, beforeEach, describe } from "vitest";
import type { Table } from "../storage/table.js";
import type { StrongroomStorage as Storage } from "../schema.js";
import { constraintTests } from "./contract/constraints.js";
import { queryTests } from "./contract/queries.js";
import { tableMethodTests } from "./contract/table-methods.js";
import { transactionTests } from "./contract/transactions.js";

export interface StorageContractOptions {
  /** Skip every test (e.g. no database server is reachable); the suite still shows up as skipped. */
  skip?: boolean;
}

/**
 * The behaviour every storage adapter must share, run unchanged against each of them. `open` is
 * called before every test; the suite empties all tables itself, so `open` may return the same
 * database each time.
 */
export function runStorageContract(name: string, open: () => Promise<Storage>, options: StorageContractOptions = {}): void {
  describe.skipIf(options.skip ?? false)(`storage contract: ${name}`, () => {
    let current: Storage | undefined;
    beforeEach(async () => {
      current = await open();
      for (const table of Object.values(current.tables) as Table<{ id: string }>[]) await table.delete({});
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });
    const storage = () => {
      if (!current) throw new Error("storage contract: no storage is open");
      return current;
    };

    tableMethodTests(storage);
    queryTests(storage);
    constraintTests(storage);
    transactionTests(storage);
  });
}
