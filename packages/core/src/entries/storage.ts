/**
 * `@strongroom/core/storage`: what a storage adapter is written against (the port, the column
 * kinds, the contract's memory reference) and Strongroom's assembled schema, which adapters
 * open by default.
 */
import { strongroomSchema } from "../schema.js";
import { createMemoryStore } from "../storage/memory.js";

export * from "../storage/columns.js";
export * from "../storage/table.js";
export { createMemoryStore } from "../storage/memory.js";
export { strongroomSchema, tablesByArea, SCHEMA_VERSION, type StrongroomSchema, type TableName } from "../schema.js";

/** A storage holding Strongroom's tables: what `createStrongroom` takes. */
export type StrongroomStorage = import("../storage/table.js").Storage<import("../schema.js").StrongroomSchema>;

/** An in-memory store of Strongroom's tables: for unit tests and short-lived embedded use. */
export const createMemoryStorage = () => createMemoryStore(strongroomSchema);
