/**
 * What a project's retention lets go, as pure decisions (the job in `retention.ts` applies them).
 * Retention cuts a prefix of the project's chain — never a hole in it — so what is left still
 * verifies from a signed checkpoint at the cut.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** Entries created before this instant are past retention; none when `days` is not a positive number. */
export function retentionCutoff(now: Date, days: number): Date | undefined {
  if (!Number.isFinite(days) || days <= 0) return undefined;
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * The last seq of the run of entries, from the chain's first stored one, that were all created
 * before `cutoff` (undefined when the first is not). Entries are given by ascending seq. The run
 * stops at the first entry at or after the cutoff even when later ones are older (clocks of
 * several nodes differ slightly): retention may keep an entry a little longer, never cut a hole.
 */
export function lastSeqToCut(entries: Iterable<{ seq: number; createdAt: string }>, cutoff: Date): number | undefined {
  let last: number | undefined;
  const limit = cutoff.getTime();
  for (const entry of entries) {
    if (Date.parse(entry.createdAt) >= limit) break;
    last = entry.seq;
  }
  return last;
}
