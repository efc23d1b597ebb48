import { batchOperations } from "./batch-operations.js";
import { readOperations } from "./read-operations.js";
import { versionOperations } from "./versions.js";
import { writeOperations } from "./write-operations.js";

/**
 * The `secrets` area: reads, single-secret writes and batch writes. Every write goes through one
 * engine (write-scope.ts, create.ts, update.ts, delete.ts): one transaction, every check before
 * the first write, events after the commit (change-log.ts).
 */
export const secretOperations = { ...readOperations, ...writeOperations, ...batchOperations, ...versionOperations };
