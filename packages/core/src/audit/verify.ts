import { checkpointSignatureValid, entryHash, GENESIS_HASH } from "./chain.js";
import type { AuditCheckpoint, AuditEntry, AuditVerifyResult } from "./schemas.js";

/**
 * Where a walk starts: the chain's genesis, or a point known good (a signed checkpoint, the
 * retention cut) whose entry is no longer part of the range.
 */
export interface VerifyAnchor {
  readonly seq: number;
  readonly hash: string;
}

export interface VerifyOptions {
  /** Default: genesis (seq 0, GENESIS_HASH): the range must start at seq 1. */
  readonly anchor?: VerifyAnchor;
  /**
   * A head obtained earlier (or the one served now): the range must reach it with the same hash,
   * so a truncated tail or a rewritten one is reported.
   */
  readonly head?: VerifyAnchor;
  /** Checkpoints to check against the entries they name, with the instance's public key. */
  readonly checkpoints?: readonly AuditCheckpoint[];
  readonly publicKeySpki?: string;
}

/** An entry in the walk, or one the store could not read back (its metadata does not open: edited). */
export type VerifiableEntry = AuditEntry | { readonly unreadable: true; readonly id: string; readonly seq: number; readonly chain: string };

/**
 * Walks one chain's entries in the order given (as stored, by seq) and names the first entry that
 * does not fit: an edited entry (its hash no longer matches), an inserted or deleted one (a gap or
 * a repeated seq, or a prevHash not matching its predecessor), a reordered one. Pure: the same
 * walk runs in the server, in `strongroom audit verify`, and over a sink's copy.
 */
export function verifyChain(chain: string, entries: Iterable<VerifiableEntry>, options: VerifyOptions = {}): AuditVerifyResult {
  let prev: VerifyAnchor = options.anchor ?? { seq: 0, hash: GENESIS_HASH };
  let checked = 0;
  const hashBySeq = new Map<number, string>();
  const bad = (seq: number, id: string | null, reason: Extract<AuditVerifyResult, { ok: false }>["firstBad"]["reason"]): AuditVerifyResult => ({
    ok: false,
    chain,
    checked,
    firstBad: { seq, id, reason },
  });
  const walk = entries[Symbol.iterator]();
  for (let step = walk.next(); !step.done; step = walk.next()) {
    const entry = step.value;
    if ("unreadable" in entry) return bad(entry.seq, entry.id, "unreadable");
    if (entry.chain !== chain) return bad(entry.seq, entry.id, "out-of-order");
    if (entry.seq <= prev.seq) return bad(entry.seq, entry.id, "out-of-order");
    if (entry.seq > prev.seq + 1) {
      // A gap is a deleted entry, unless the entry it lacks comes later: then this one is out of place.
      const wanted = prev.seq + 1;
      for (let later = walk.next(); !later.done; later = walk.next()) {
        if (later.value.seq === wanted) return bad(entry.seq, entry.id, "out-of-order");
      }
      return bad(wanted, null, "missing");
    }
    if (entry.prevHash !== prev.hash) return bad(entry.seq, entry.id, "broken-link");
    const { hash: _stored, ...fields } = entry;
    if (entryHash(fields) !== entry.hash) return bad(entry.seq, entry.id, "hash-mismatch");
    prev = { seq: entry.seq, hash: entry.hash };
    if (options.checkpoints) hashBySeq.set(entry.seq, entry.hash);
    checked++;
  }
  for (const checkpoint of options.checkpoints ?? []) {
    if (checkpoint.chain !== chain) continue;
    const seen = hashBySeq.get(checkpoint.seq);
    if (seen !== undefined && seen !== checkpoint.hash) return bad(checkpoint.seq, null, "hash-mismatch");
    if (options.publicKeySpki !== undefined && !checkpointSignatureValid(checkpoint, options.publicKeySpki)) {
      return bad(checkpoint.seq, null, "bad-signature");
    }
  }
  if (options.head) {
    if (prev.seq < options.head.seq) return bad(prev.seq + 1, null, "behind-head");
    if (prev.seq > options.head.seq) return bad(options.head.seq + 1, null, "beyond-head");
    if (prev.seq === options.head.seq && prev.hash !== options.head.hash) return bad(prev.seq, null, "hash-mismatch");
  }
  return { ok: true, chain, checked, head: checked > 0 || options.anchor ? prev : null };
}
