export type { Dialect } from "./dialect.js";
export { createKyselyStorage, type KyselyStorageOptions } from "./storage.js";
export type { ReadNow } from "./scope.js";
export { migrate, VERSION_TABLE, type MigrateOptions } from "./migrate.js";
export { indexName, primaryKeyName, uniqueColumnsOf } from "./names.js";
