export * from "./columns.js";
export * from "./schema.js";
export * from "./table.js";
export { createMemoryStorage } from "./memory.js";
