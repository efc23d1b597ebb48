export type { Dialect } from "./dialect.js";
export { createKyselyStorage, type KyselyStorageOptions, type ReadNow } from "./storage.js";
export { migrate, VERSION_TABLE, type MigrateOptions } from "./migrate.js";
export { indexName, primaryKeyName, uniqueColumnsOf } from "./names.js";
