import { sql } from "@strongroom/storage-kysely/kysely";

/**
 * A transaction-scoped advisory lock: concurrent callers (other nodes starting at the same time)
 * wait for the holder's commit, so schema changes never race. Released automatically at commit.
 */
export const advisoryXactLock = (name: string) => sql`select pg_advisory_xact_lock(hashtext(${name}))`;
