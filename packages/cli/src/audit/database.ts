/** `audit verify` against the server's own database, offline: the same walk the server's `verify` runs. */
import type { AuditVerifyResult, VerifyAnchor } from "@strongroom/core/audit";
import { CliError } from "../exit-codes.js";
import { exists } from "../operator/files.js";
import { requireMatchingRootKey } from "../operator/root-check.js";
import type { DatabaseTarget } from "../operator/target.js";

export interface VerifyRange {
  /** Chains to walk; every stored chain when empty. */
  chains: readonly string[];
  fromSeq?: number;
  toSeq?: number;
  head?: VerifyAnchor;
}

/**
 * Opens the database with the root key the server uses (entries' metadata is sealed under it) and
 * walks each chain. Reads only; a server may keep running (SQLite in WAL mode, PostgreSQL).
 */
export async function verifyDatabase(target: DatabaseTarget, input: VerifyRange): Promise<AuditVerifyResult[]> {
  if (target.kind === "sqlite" && !(await exists(target.file))) throw new CliError(`no database at ${target.file} (wrong --data-dir?)`);
  const { key } = await requireMatchingRootKey(target, target.kind === "sqlite" ? target.file : "the database");
  const { createStrongroom } = await import("@strongroom/core");
  const storage =
    target.kind === "sqlite"
      ? await (await import("@strongroom/storage-sqlite")).createSqliteStorage({ filename: target.file })
      : await (await import("@strongroom/storage-postgres")).createPostgresStorage({ connectionString: target.url });
  const strongroom = await createStrongroom({ storage, rootKey: key.key });
  const audit = strongroom.audit;
  try {
    const chains = input.chains.length > 0 ? input.chains : await audit.chains();
    const results: AuditVerifyResult[] = [];
    for (const chain of chains) {
      const range = { ...(input.fromSeq !== undefined ? { fromSeq: input.fromSeq } : {}), ...(input.toSeq !== undefined ? { toSeq: input.toSeq } : {}) };
      const head = input.head;
      if (!head) {
        results.push(await audit.verify({ chain, ...range }));
        continue;
      }
      // A head noted earlier must still be there with its hash; the chain may have grown since,
      // and what came after it is checked against the stored head.
      const upToHead = await audit.verify({ chain, ...range, toSeq: head.seq, head });
      results.push(upToHead.ok && input.toSeq === undefined ? await audit.verify({ chain, ...range }) : upToHead);
    }
    return results;
  } finally {
    await strongroom.close();
  }
}
