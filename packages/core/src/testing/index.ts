export { runStorageContract, type StorageContractOptions } from "./storage-contract.js";
export { sampleRow } from "./sample-rows.js";
export { runCrashSafetyTest, type CrashSafetyOptions } from "./crash-safety.js";
export { runLeaseTakeoverTest, type LeaseTakeoverOptions } from "./lease-takeover.js";
export { jobNode } from "./job-node.js";
export { runMigrationContract, type MigratingOpener, type MigrationContractOptions } from "./migration-contract.js";
export { settleScans, openSubscriptionCount } from "./instance.js";
export { forEachStore, registerTestStore, testStores, memoryStore, type TestStore, type ForEachStoreOptions } from "./stores.js";
export { createTestWorld, type TestWorld, type TestWorldOptions, type TestRule } from "./world.js";
export { openssl, workspace, type OpensslResult, type Workspace } from "./openssl.js";
export {
  LOOPBACK,
  closedPort,
  startSilentEndpoint,
  startSmtpReceiver,
  startTlsEndpoint,
  startWebhookReceiver,
  type ReceivedHook,
  type ReceivedMail,
  type Running,
  type SmtpReceiver,
  type WebhookReceiver,
} from "./loopback-servers.js";
export { storedAuditRows } from "./audit-rows.js";
