/**
 * `@strongroom/core/storage`: what a storage adapter is written against (the port, the column
 * kinds, the contract's memory reference) and Strongroom's assembled schema, which adapters
 * open by default.
 */
export * from "../storage/columns.js";
export * from "../storage/table.js";
export { createMemoryStore } from "../storage/memory.js";
export { lazyTables } from "../storage/lazy-tables.js";
export {
  strongroomSchema,
  tablesByArea,
  SCHEMA_VERSION,
  createMemoryStorage,
  type StrongroomSchema,
  type StrongroomStorage,
  type TableName,
} from "../schema.js";
