import type { Context } from "../kernel/context.js";
import { NotFoundError } from "../kernel/errors.js";
import { newId } from "../kernel/ids.js";
import type { AuditControl } from "./api.js";
import { signCheckpoint } from "./chain.js";
import type { AuditLog } from "./log.js";
import { auditRepository } from "./repository.js";
import { toEntry } from "./rows.js";
import type { AuditCheckpoint, AuditHead, AuditVerifyResult } from "./schemas.js";
import type { AuditCheckpointRow } from "./tables.js";
import { verifyChain, type VerifiableEntry, type VerifyAnchor } from "./verify.js";

const PAGE = 1000;

export const toCheckpoint = (row: AuditCheckpointRow): AuditCheckpoint => ({
  chain: row.chainId,
  seq: row.seq,
  hash: row.hash,
  createdAt: row.createdAt,
  keyId: row.keyId,
  signature: row.signature,
});

/** The latest head of a chain, its newest checkpoint and the public key: what the head route serves. */
export async function headOf(ctx: Context, log: AuditLog, chain: string): Promise<AuditHead> {
  const repo = ctx.repo(auditRepository);
  const head = await repo.head(chain);
  if (!head) throw new NotFoundError("Audit chain not found");
  const checkpoint = await repo.latestCheckpoint(chain);
  return {
    chain,
    seq: head.seq,
    hash: head.hash,
    firstSeq: head.firstSeq,
    checkpoint: checkpoint ? toCheckpoint(checkpoint) : null,
    publicKey: { keyId: log.keys.signing.keyId, spki: log.keys.signing.publicKeySpki },
  };
}

/**
 * Walks a stored chain page by page. Where retention cut the prefix the walk starts from the
 * checkpoint at the cut; a range starting mid-chain starts from its predecessor's stored hash (the
 * walk then vouches for the range, not for what precedes it). The stored head must be reached.
 */
export async function verifyStored(
  ctx: Context,
  log: AuditLog,
  input: { chain: string; fromSeq?: number; toSeq?: number; head?: VerifyAnchor },
): Promise<AuditVerifyResult> {
  const repo = ctx.repo(auditRepository);
  const stored = await repo.head(input.chain);
  if (!stored) throw new NotFoundError("Audit chain not found");
  const from = Math.max(input.fromSeq ?? stored.firstSeq, stored.firstSeq);
  let anchor: VerifyAnchor | undefined;
  if (from > 1) {
    const checkpoints = await repo.checkpoints(input.chain);
    const at = checkpoints.find((c) => c.seq === from - 1);
    const before = at ? undefined : (await repo.chainEntries(input.chain, from - 1, from - 1, 1))[0];
    anchor = at ? { seq: at.seq, hash: at.hash } : before ? { seq: before.seq, hash: before.hash } : undefined;
    if (!anchor) return { ok: false, chain: input.chain, checked: 0, firstBad: { seq: from - 1, id: null, reason: "missing" } };
  }
  const to = input.toSeq;
  // The head to reach: the one given (obtained earlier), else the stored one when the walk runs to the end.
  const head = input.head ?? (to === undefined || to >= stored.seq ? { seq: stored.seq, hash: stored.hash } : undefined);
  const checkpoints = (await repo.checkpoints(input.chain)).map(toCheckpoint);
  const entries = async function* (): AsyncGenerator<VerifiableEntry> {
    let next = from;
    for (;;) {
      const rows = await repo.chainEntries(input.chain, next, to, PAGE);
      for (const row of rows) {
        try {
          yield toEntry(row, log.keys);
        } catch {
          yield { unreadable: true, id: row.id, seq: row.seq, chain: row.chainId };
        }
      }
      if (rows.length < PAGE) return;
      next = rows[rows.length - 1].seq + 1;
    }
  };
  const collected: VerifiableEntry[] = [];
  for await (const entry of entries()) collected.push(entry);
  return verifyChain(input.chain, collected, {
    anchor,
    head,
    checkpoints: checkpoints.filter((c) => c.seq >= from),
    publicKeySpki: log.keys.signing.publicKeySpki,
  });
}

/** Signs a checkpoint of every chain whose head moved since its newest one; returns how many. */
export async function checkpointChains(ctx: Context, log: AuditLog): Promise<number> {
  const repo = ctx.repo(auditRepository);
  let signed = 0;
  for (const head of await repo.heads()) {
    if (head.seq === 0) continue;
    const latest = await repo.latestCheckpoint(head.id);
    if (latest && latest.seq >= head.seq) continue;
    const body = { chain: head.id, seq: head.seq, hash: head.hash, createdAt: ctx.clock.now().toISOString() };
    await repo.insertCheckpoint({
      id: newId(),
      chainId: head.id,
      seq: head.seq,
      hash: head.hash,
      createdAt: body.createdAt,
      keyId: log.keys.signing.keyId,
      signature: signCheckpoint(body, log.keys.signing.privateKey),
    });
    signed++;
  }
  return signed;
}

export function auditControl(ctx: Context, log: AuditLog): AuditControl {
  return {
    verify: (input) => verifyStored(ctx, log, input),
    chains: () => ctx.repo(auditRepository).chainIds(),
    headOf: (chain) => headOf(ctx, log, chain),
    addSink: (sink) => log.addSink(sink),
    flush: () => log.flush(),
    checkpoint: () => checkpointChains(ctx, log),
  };
}
