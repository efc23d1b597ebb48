import type { StrongroomStorage } from "@strongroom/core/storage";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

/** Loaded by core's crash-safety child process. */
export const openStorage = (): Promise<StrongroomStorage> => createSqliteStorage({ filename: process.env.STRONGROOM_CRASH_FILE! });
