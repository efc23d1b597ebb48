import type { AuditSink } from "./sink.js";
import type { AuditHead, AuditVerifyResult } from "./schemas.js";
import type { VerifyAnchor } from "./verify.js";

/**
 * `strongroom.audit`: besides the operations (`query`, `head`, served over HTTP too), what an
 * embedder holds directly.
 */
export interface AuditControl {
  /**
   * Walks a stored chain (all of it, or `fromSeq`..`toSeq`) and names the first entry that does not
   * fit. `head` is a head obtained earlier: a tail cut off since is reported (`behind-head`).
   */
  verify(input: { chain: string; fromSeq?: number; toSeq?: number; head?: VerifyAnchor }): Promise<AuditVerifyResult>;
  /** Every chain id stored (for `verify --all` and the retention job). */
  chains(): Promise<string[]>;
  /** The latest head of a chain with its newest checkpoint and the public key (as the API serves it). */
  headOf(chain: string): Promise<AuditHead>;
  /** Streams every entry committed from now on to `sink`; returns a function that removes it. */
  addSink(sink: AuditSink): () => void;
  /** Writes the queued read entries now (tests, shutdown). */
  flush(): Promise<void>;
  /** Signs a checkpoint of every chain that moved since its last one (the scheduler does this periodically). */
  checkpoint(): Promise<number>;
}
