import { defineService, type Context } from "../kernel/context.js";
import { ServiceUnavailableError } from "../kernel/errors.js";
import { UniqueViolationError } from "../storage/table.js";
import { appendDrafts, PlaceResolver } from "./append.js";
import { GENESIS_HASH } from "./chain.js";
import { aggregationKey, chainOf, type AuditDraft } from "./drafts.js";
import { loadAuditKeys, type AuditKeys } from "./keys.js";
import { auditRepository } from "./repository.js";
import type { AuditEntry } from "./schemas.js";
import type { AuditSink } from "./sink.js";

/** Bounds of the read queue (issue #19): flushed every 100 ms or at 1,000 entries; past `capacity` requests get 503. */
export interface AuditQueueOptions {
  readonly flushIntervalMs: number;
  readonly batchSize: number;
  readonly capacity: number;
}

export const defaultAuditQueue: AuditQueueOptions = { flushIntervalMs: 100, batchSize: 1000, capacity: 10_000 };

/**
 * The instance's audit log: writes change entries inside the change's transaction, queues read
 * entries and flushes them in batches (one transaction, one multi-row insert per chain), counts
 * anonymous failures per address and minute, and hands committed entries to the sinks.
 */
export class AuditLog {
  private keysLoaded?: AuditKeys;
  private readonly resolver = new PlaceResolver();
  private queue: AuditDraft[] = [];
  private readonly aggregates = new Map<string, { draft: AuditDraft; count: number; targets: Set<string> }>();
  private readonly knownChains = new Set<string>();
  private readonly sinks = new Set<AuditSink>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<void> | undefined;
  /** Entries of the flush under way: still waiting, as far as `admit` is concerned. */
  private writing = 0;
  /** Set while the last flush failed: the queue is not draining. */
  private failing = false;
  private closed = false;
  options: AuditQueueOptions = defaultAuditQueue;
  /** False when the instance was created with `audit: false`: hooks record nothing either. */
  enabled = true;

  constructor(private readonly ctx: Context) {}

  async start(options: Partial<AuditQueueOptions> = {}, enabled = true): Promise<void> {
    this.options = { ...defaultAuditQueue, ...options };
    this.enabled = enabled;
    this.keysLoaded ??= await loadAuditKeys(this.ctx.storage, this.ctx.keys, this.ctx.clock.now());
  }

  get keys(): AuditKeys {
    if (!this.keysLoaded) throw new Error("audit log not started");
    return this.keysLoaded;
  }

  /** Entries waiting to be written (queued reads and open aggregates). */
  get pending(): number {
    return this.queue.length + this.aggregates.size + this.writing;
  }

  /** Refuses new work (503) while the queue is full: requests are not served unrecorded. */
  admit(): void {
    if (this.pending >= this.options.capacity) {
      this.scheduleFlush(0);
      throw new ServiceUnavailableError("The audit log cannot keep up; retry shortly", 1);
    }
  }

  /** Writes drafts in `tx` (the change's own transaction); sinks see them once it commits. */
  async appendIn(tx: Context, drafts: readonly AuditDraft[]): Promise<void> {
    const resolved = await this.resolver.resolveAll(tx, drafts);
    const entries = await appendDrafts(tx, this.keys, resolved, { segments: false, entries: this.sinks.size > 0 });
    if (entries.length > 0) tx.afterCommit(() => this.publish(entries));
  }

  /** Writes drafts now in a transaction of their own, a segment per chain: durable before the caller answers. */
  async write(drafts: readonly AuditDraft[]): Promise<void> {
    const resolved = await this.resolver.resolveAll(this.ctx, drafts);
    await this.ensureHeads(resolved);
    await this.ctx.withTransaction((tx) => this.appendResolved(tx, resolved));
  }

  /** Queues a read's entry (or counts an anonymous failure); written within the flush bound. */
  enqueue(draft: AuditDraft): void {
    const key = aggregationKey(draft);
    if (key !== undefined) {
      const open = this.aggregates.get(key);
      const target = typeof draft.metadata.target === "string" ? draft.metadata.target : undefined;
      if (open) {
        open.count++;
        if (target && open.targets.size < 10) open.targets.add(target);
      } else {
        this.aggregates.set(key, { draft, count: 1, targets: new Set(target ? [target] : []) });
      }
      this.scheduleFlush(this.options.flushIntervalMs);
      return;
    }
    this.queue.push(draft);
    this.scheduleFlush(this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
  }

  /** Writes everything queued, including aggregates of the current minute (tests, shutdown). */
  async flush(): Promise<void> {
    await this.flushing;
    while (this.pending > 0) {
      await this.flushOnce(true);
      if (this.failing) throw new Error("audit log flush failed");
    }
  }

  addSink(sink: AuditSink): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      await this.flush();
    } catch (error) {
      this.ctx.log({ level: "error", msg: "audit log: entries lost at shutdown", pending: this.pending, error: describe(error) });
    }
    for (const sink of this.sinks) await sink.close?.().catch(() => {});
  }

  private scheduleFlush(delayMs: number): void {
    if (this.closed) return;
    if (this.timer && delayMs > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flushOnce(false).then(() => {
        if (this.pending > 0) this.scheduleFlush(this.failing ? 1000 : this.queue.length >= this.options.batchSize ? 0 : this.options.flushIntervalMs);
      });
    }, delayMs);
    this.timer.unref?.();
  }

  private flushOnce(all: boolean): Promise<void> {
    if (this.flushing) return this.flushing;
    const batch = this.queue.splice(0, this.options.batchSize);
    const minute = this.ctx.clock.now().toISOString().slice(0, 16);
    for (const [key, open] of this.aggregates) {
      if (!all && open.draft.at.slice(0, 16) >= minute) continue;
      this.aggregates.delete(key);
      const { target: _one, ...rest } = open.draft.metadata;
      const metadata = { ...rest, ...(open.targets.size ? { targets: [...open.targets] } : {}) };
      batch.push({ ...open.draft, metadata, count: open.count });
    }
    if (batch.length === 0) return Promise.resolve();
    this.writing = batch.length;
    this.flushing = this.write(batch)
      .then(() => {
        this.failing = false;
      })
      .catch((error: unknown) => {
        // Kept, in order, for the next attempt; meanwhile `admit` refuses once the queue is full.
        this.queue = batch.concat(this.queue);
        this.failing = true;
        this.ctx.log({ level: "error", msg: "audit log flush failed", pending: this.pending, error: describe(error) });
      })
      .finally(() => {
        this.writing = 0;
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private async appendResolved(tx: Context, drafts: readonly AuditDraft[]): Promise<void> {
    const entries = await appendDrafts(tx, this.keys, drafts, { segments: true, entries: this.sinks.size > 0 });
    if (entries.length > 0) tx.afterCommit(() => this.publish(entries));
  }

  /** Creates missing chain heads before the append's transaction (a conflict there would abort it on PostgreSQL). */
  private async ensureHeads(drafts: readonly AuditDraft[]): Promise<void> {
    const repo = this.ctx.repo(auditRepository);
    for (const draft of drafts) {
      const chain = chainOf(draft);
      if (this.knownChains.has(chain)) continue;
      if (!(await repo.head(chain))) {
        const now = this.ctx.clock.now().toISOString();
        try {
          await repo.createHead({ id: chain, orgId: draft.orgId, projectId: draft.projectId, seq: 0, hash: GENESIS_HASH, firstSeq: 1, updatedAt: now });
        } catch (error) {
          if (!(error instanceof UniqueViolationError)) throw error;
        }
      }
      this.knownChains.add(chain);
    }
  }

  private publish(entries: readonly AuditEntry[]): void {
    for (const sink of this.sinks) {
      sink.write(entries).catch((error: unknown) => this.ctx.log({ level: "error", msg: "audit sink failed", sink: sink.name, error: describe(error) }));
    }
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const auditLogService = defineService("audit-log", (ctx) => new AuditLog(ctx));
