import type { EventBus } from "@strongroom/core";
import type { Storage, StrongroomSchema } from "@strongroom/core/storage";
import { join } from "node:path";
import type { PoolLoad } from "../metrics/registry.js";
import type { ServerSettings } from "./settings.js";

export interface Backend {
  storage: Storage<StrongroomSchema>;
  /** Only multi-node deployments need one; otherwise core's in-process bus is used. */
  bus?: EventBus;
}

export interface BackendOptions {
  /** Handed a reader of the connection pool's load, when there is a pool (PostgreSQL; metrics). */
  watchPool?: (read: () => PoolLoad) => void;
}

/**
 * PostgreSQL (storage and a LISTEN/NOTIFY bus, so events reach every node) when a database URL
 * is set, else SQLite in the data directory. Drivers load only when chosen.
 */
export async function openBackend(settings: ServerSettings, options: BackendOptions = {}): Promise<Backend> {
  if (settings.postgresUrl) {
    const { createPostgresStorage, createPostgresBus } = await import("@strongroom/storage-postgres");
    const storage = await createPostgresStorage({ connectionString: settings.postgresUrl, ...(options.watchPool ? { watchPool: options.watchPool } : {}) });
    try {
      return { storage, bus: await createPostgresBus({ connectionString: settings.postgresUrl }) };
    } catch (thrown) {
      await storage.close();
      throw thrown;
    }
  }
  const { createSqliteStorage } = await import("@strongroom/storage-sqlite");
  return { storage: await createSqliteStorage({ filename: join(settings.dataDir, "strongroom.db") }) };
}
