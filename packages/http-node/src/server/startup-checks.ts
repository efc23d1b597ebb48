import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { ServerSettings } from "./settings.js";

/** What a start-up check has to say when it lets the server start anyway. */
export type StartupWarning = (message: string) => void;

const sizeOf = async (file: string): Promise<number | undefined> => {
  try {
    return (await stat(file)).size;
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw thrown;
  }
};

/**
 * Start only on good ground (SQLite in DATA_DIR; PostgreSQL checks nothing here). Refuses, with
 * the remedy in the message:
 * - an empty (0-byte) database beside an existing `root.key`: the data was lost or truncated, and
 *   starting would make a fresh instance whose bootstrap anyone could claim;
 * - a damaged database (SQLite `quick_check`, bounded in time): it would answer 500 per request.
 * Runs before the root key is loaded, so a key file created by this very start does not count.
 */
export async function checkDataDir(settings: ServerSettings, warn: StartupWarning): Promise<void> {
  if (settings.postgresUrl) return;
  const database = join(settings.dataDir, "strongroom.db");
  const keyFile = join(settings.dataDir, "root.key");
  const size = await sizeOf(database);
  if (size === 0 && (await sizeOf(keyFile)) !== undefined) {
    throw new Error(
      `${database} is empty (0 bytes) but ${keyFile} exists: the database was lost or truncated. ` +
        `Restore it from a backup; to start a new, empty instance instead, move ${keyFile} away first.`,
    );
  }
  if (!size) return;
  const { quickCheck, QUICK_CHECK_TIMEOUT_MS } = await import("@strongroom/storage-sqlite");
  const outcome = await quickCheck(database, QUICK_CHECK_TIMEOUT_MS);
  if (outcome.status === "damaged") {
    throw new Error(`${database} is damaged (SQLite quick_check: ${outcome.problems.slice(0, 3).join("; ")}). Restore it from a backup.`);
  }
  if (outcome.status === "unchecked") {
    warn(`${database} was not fully checked: the start-up check was stopped after ${QUICK_CHECK_TIMEOUT_MS / 1000} s`);
  }
}
