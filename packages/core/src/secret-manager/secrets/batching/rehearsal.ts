import type { Context } from "../../../kernel/context.js";
import { BadRequestError } from "../../../kernel/errors.js";
import { folderRepository } from "../../folders/repository.js";
import type { TagRow } from "../../tables.js";
import { tagRepository } from "../../tags/repository.js";
import type { SecretChangeLog } from "../change-log.js";
import type { FolderRef } from "../model.js";
import { secretRepository, type SecretRepository } from "../repository.js";

/** The folder lookups a secret write makes. */
export interface FolderLookup {
  find(envId: string, path: string): Promise<FolderRef | undefined>;
}

/** Where a write records its changes (the events published after the commit). */
export type ChangeRecorder = Pick<SecretChangeLog, "record">;

type Recorded = Parameters<ChangeRecorder["record"]>;

/** What a deferred write answers the writer at once: updates report the rows as changed (checked for real when they are made). */
const DEFERRED_WRITES = { insert: undefined, update: true, updateMany: true, fileVersions: undefined, delete: undefined } as const;
type WriteMethod = keyof typeof DEFERRED_WRITES;

interface Read {
  repo: "secrets" | "folders";
  method: string;
  args: unknown[];
  result: unknown;
}

/**
 * A secret write run first outside any transaction: its reads go to the database as it is now,
 * its writes and change records are kept instead of made. That is where a big batch spends its
 * time — opening, checking and sealing each secret, blind indexes — paced so other requests run
 * in between. `holds` then runs, inside the transaction, the same reads again (with the row locks
 * the writer asked for) and the tags; when each finds exactly what the rehearsal found, the
 * writer's decisions still stand, and `perform` makes the kept writes: the transaction holds
 * only those reads and writes. When any differs, the caller runs the write again inside the
 * transaction, as if there had been no rehearsal.
 *
 * Sound because a writer's decisions depend only on its input, the scope (fixed before either
 * run), the tags and what these reads return; ids and timestamps it makes up are kept as made.
 */
export class Rehearsal {
  private readonly reads: Read[] = [];
  private readonly writes: { method: WriteMethod; args: unknown[] }[] = [];
  private readonly changes: Recorded[] = [];

  constructor(
    private readonly projectId: string,
    /** The project's tags as the rehearsal saw them. */
    readonly tags: ReadonlyMap<string, TagRow>,
  ) {}

  /** The secrets repository as the rehearsing writer sees it. */
  secrets(real: SecretRepository): SecretRepository {
    const out: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(real) as [string, (...args: unknown[]) => Promise<unknown>][]) {
      out[method] =
        method in DEFERRED_WRITES
          ? (...args: unknown[]) => {
              this.writes.push({ method: method as WriteMethod, args });
              return Promise.resolve(DEFERRED_WRITES[method as WriteMethod]);
            }
          : this.recording("secrets", method, fn);
    }
    return out as SecretRepository;
  }

  folders(real: FolderLookup): FolderLookup {
    return { find: this.recording("folders", "find", real.find) as FolderLookup["find"] };
  }

  /** Set when the writer read through the plain context (a hook of another area): reads this class cannot replay. */
  private opaque = false;

  /** False once the writer read what `holds` cannot read again. */
  get verifiable(): boolean {
    return !this.opaque;
  }

  /**
   * The context as the rehearsing writer sees it: what it reads through it (hooks of other areas)
   * is not recorded, so using it makes the rehearsal unverifiable and the write runs again inside
   * the transaction.
   */
  context(ctx: Context): Context {
    const mark = () => {
      this.opaque = true;
    };
    return {
      ...ctx,
      repo: (def) => (mark(), ctx.repo(def)),
      emit: (hook, payload) => (mark(), ctx.emit(hook, payload)),
      withTransaction: (fn) => (mark(), ctx.withTransaction(fn)),
    };
  }

  readonly log: ChangeRecorder = {
    record: (...args: Recorded) => {
      this.changes.push(args);
    },
  };

  private recording(repo: Read["repo"], method: string, fn: (...args: any[]) => Promise<unknown>) {
    return async (...args: unknown[]) => {
      const result = await fn(...args);
      this.reads.push({ repo, method, args, result });
      return result;
    };
  }

  /** Inside the transaction: whether every read (and the tags) still finds what the rehearsal found. */
  async holds(tx: Context): Promise<boolean> {
    if (this.opaque) return false;
    const repos = { secrets: tx.repo(secretRepository) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>, folders: tx.repo(folderRepository) };
    for (const read of this.reads) {
      const repo = repos[read.repo] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      if (!same(await repo[read.method](...read.args), read.result)) return false;
    }
    return sameTags(await tx.repo(tagRepository).ofProject(this.projectId), this.tags);
  }

  /** Inside the transaction, after `holds`: makes the kept writes in their order and records the changes. */
  async perform(tx: Context, log: ChangeRecorder): Promise<void> {
    const secrets = tx.repo(secretRepository) as unknown as Record<WriteMethod, (...args: unknown[]) => Promise<unknown>>;
    for (const { method, args } of this.writes) {
      const result = await secrets[method](...args);
      // The rows were read again and locked just now, so this cannot happen; if it did, nothing is written.
      if ((method === "update" || method === "updateMany") && result !== true) throw new BadRequestError("A secret was changed by another request; retry");
    }
    for (const change of this.changes) log.record(...change);
  }
}

function sameTags(a: ReadonlyMap<string, TagRow>, b: ReadonlyMap<string, TagRow>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, tag] of a) if (!same(tag, b.get(id))) return false;
  return true;
}

/** Deep equality of what storage returns: rows of primitives, arrays and plain objects. */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  return true;
}
