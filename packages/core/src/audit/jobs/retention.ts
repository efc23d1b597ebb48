import { accessRepository } from "../../access/repository.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import type { ScheduledJob } from "../../jobs/scheduler.js";
import { tablesOf } from "../../storage/table.js";
import { signCheckpoint } from "../chain.js";
import { auditLogService } from "../log.js";
import { auditRepository } from "../repository.js";
import { lastSeqToCut, retentionCutoff } from "./retention-cut.js";
import { auditTables } from "../tables.js";

/** Entries looked at, and cut at most, per step: one short transaction each. */
const STEP = 1000;
/** Steps per chain per run: a long backlog is worked off over several runs, never in one long one. */
const STEPS_PER_RUN = 50;

/** The writes only retention makes: cutting a chain's prefix. */
const retentionRepository = defineRepository("audit-retention", (ctx) => {
  const t = tablesOf(ctx.storage, auditTables);
  return {
    /** Removes the entries `firstSeq..cut` and the checkpoints before the cut; the one at the cut stays. */
    async cutPrefix(chainId: string, cut: number): Promise<number> {
      const segments = await t.auditSegments.find({ chainId, lastSeq: { lte: cut } });
      await t.auditSegments.delete({ chainId, lastSeq: { lte: cut } });
      const removed = (await t.auditEntries.delete({ chainId, seq: { lte: cut } })) + segments.reduce((n, s) => n + s.lastSeq - s.firstSeq + 1, 0);
      await t.auditCheckpoints.delete({ chainId, seq: { lt: cut } });
      await t.auditChainHeads.update({ id: chainId }, { firstSeq: cut + 1 });
      return removed;
    },
  };
});

/**
 * Cuts what `project:<id>`'s retention lets go (DESIGN.md §11): in each step, with the chain's head
 * locked (appends wait), it signs a checkpoint at the last entry it removes — unless one is there
 * already — removes the prefix up to it and moves the head's `firstSeq` past it. `verify` starts
 * from that checkpoint, so what is left verifies as before; a run that dies half way leaves a
 * consistent chain (each step is one transaction) and the next run goes on. Returns entries removed.
 */
export async function applyRetention(ctx: Context, chainId: string, cutoff: Date): Promise<number> {
  const log = ctx.service(auditLogService);
  let removed = 0;
  for (let step = 0; step < STEPS_PER_RUN; step++) {
    const head = await ctx.repo(auditRepository).head(chainId);
    if (!head || head.firstSeq > head.seq) break;
    const rows = await ctx.repo(auditRepository).chainEntries(chainId, head.firstSeq, undefined, STEP);
    let cut = lastSeqToCut(rows, cutoff);
    // A segment is removed whole: one that runs past the cut keeps its earlier entries a little longer.
    const across = cut === undefined ? undefined : await ctx.repo(auditRepository).segmentAcross(chainId, cut);
    if (across) cut = across.firstSeq - 1;
    if (cut === undefined || cut < head.firstSeq) break;
    const last = rows.find((row) => row.seq === cut)!;
    const done = await ctx.withTransaction(async (tx) => {
      const locked = await tx.repo(auditRepository).lockHead(chainId);
      // Another node cut this prefix meanwhile: nothing left to do in this step.
      if (!locked || locked.firstSeq !== head.firstSeq) return 0;
      const checkpoints = await tx.repo(auditRepository).checkpoints(chainId);
      if (!checkpoints.some((c) => c.seq === cut && c.hash === last.hash)) {
        const body = { chain: chainId, seq: cut, hash: last.hash, createdAt: tx.clock.now().toISOString() };
        await tx.repo(auditRepository).insertCheckpoint({
          id: newId(),
          chainId,
          seq: cut,
          hash: last.hash,
          createdAt: body.createdAt,
          keyId: log.keys.signing.keyId,
          signature: signCheckpoint(body, log.keys.signing.privateKey),
        });
      }
      return tx.repo(retentionRepository).cutPrefix(chainId, cut);
    });
    removed += done;
    if (cut < rows[rows.length - 1].seq || rows.length < STEP) break;
  }
  return removed;
}

/**
 * Honours each project's `auditLogsRetentionDays` once a day, once across nodes (the scheduler's
 * lease). Only project chains are cut; organization and instance chains are kept. A deleted
 * project's entries are kept (DESIGN.md §11): without its setting nothing says when they may go.
 */
export const auditRetentionJob: ScheduledJob = {
  name: "audit-retention",
  intervalMs: 24 * 60 * 60 * 1000,
  run: async (ctx) => {
    const now = ctx.clock.now();
    for (const chainId of await ctx.repo(auditRepository).chainIds()) {
      if (!chainId.startsWith("project:")) continue;
      const project = await ctx.repo(accessRepository).projectById(chainId.slice("project:".length));
      const cutoff = project && retentionCutoff(now, project.auditLogsRetentionDays);
      if (cutoff) await applyRetention(ctx, chainId, cutoff);
    }
  },
};
