import { createPostgresStorage } from "@strongroom/storage-postgres";

/** Loaded by core's crash-safety child process. */
export const openStorage = () => createPostgresStorage({ connectionString: process.env.STRONGROOM_CRASH_URL! });
