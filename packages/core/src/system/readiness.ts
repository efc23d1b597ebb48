import { jobTables } from "../jobs/tables.js";
import type { Context } from "../kernel/context.js";
import { ServiceUnavailableError } from "../kernel/errors.js";
import { tablesOf } from "../storage/table.js";

/** A readiness answer waits at most this long for the database, so probes never pile up behind a pool. */
export const READINESS_PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether this instance can serve requests now: the database answers a query within the bound,
 * and the event relay (on PostgreSQL) is listening. Throws 503 with the reason otherwise.
 */
export async function requireReady(ctx: Context): Promise<void> {
  const relay = ctx.bus.unavailableReason?.();
  if (relay) throw new ServiceUnavailableError(relay, 1);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), READINESS_PROBE_TIMEOUT_MS);
  });
  try {
    // One indexed read of a small table the instance owns: it fails while the database is away.
    const probe = tablesOf(ctx.storage, jobTables).jobLeases.get("readiness-probe");
    const outcome = await Promise.race([probe.then(() => "ok" as const), late]);
    if (outcome === "late") {
      probe.catch(() => undefined);
      throw new ServiceUnavailableError(`The database did not answer within ${READINESS_PROBE_TIMEOUT_MS / 1000} s`, 1);
    }
  } catch (thrown) {
    if (thrown instanceof ServiceUnavailableError) throw thrown;
    throw new ServiceUnavailableError("The database is not usable", 1);
  } finally {
    clearTimeout(timer);
  }
}
