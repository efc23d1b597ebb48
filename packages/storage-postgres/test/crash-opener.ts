import type { StrongroomStorage } from "@strongroom/core/storage";
import { createPostgresStorage } from "@strongroom/storage-postgres";

/** Loaded by core's crash-safety child process. */
export const openStorage = (): Promise<StrongroomStorage> => createPostgresStorage({ connectionString: process.env.STRONGROOM_CRASH_URL! });
