import type { StrongroomStorage } from "@strongroom/core/storage";
import type { DatabaseTarget } from "./target.js";

/** The database as a server would open it (migrated to this version's schema if it is behind). */
export async function openTargetStorage(target: DatabaseTarget): Promise<StrongroomStorage> {
  if (target.kind === "sqlite") {
    const { createSqliteStorage } = await import("@strongroom/storage-sqlite");
    return createSqliteStorage({ filename: target.file });
  }
  const { createPostgresStorage } = await import("@strongroom/storage-postgres");
  return createPostgresStorage({ connectionString: target.url, pool: { max: 4, application_name: "strongroom-cli" } });
}
