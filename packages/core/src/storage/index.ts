export * from "./columns.js";
export * from "./table.js";
export { createMemoryStore } from "./memory.js";
export { observeWrites } from "./observe.js";
export { lazyTables } from "./lazy-tables.js";
