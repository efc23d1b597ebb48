export { runStorageContract, type StorageContractOptions } from "./storage-contract.js";
export { sampleRow } from "./sample-rows.js";
export { runCrashSafetyTest, type CrashSafetyOptions } from "./crash-safety.js";
export { runMigrationContract, type MigratingOpener, type MigrationContractOptions } from "./migration-contract.js";
