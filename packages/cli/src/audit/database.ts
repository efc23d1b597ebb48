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
export async function verifyDatabase(target: DatabaseTarget, range: VerifyRange): Promise<AuditVerifyResult[]> {
  if (target.kind === "sqlite" && !(await exists(target.file))) throw new CliError(`no database at ${target.file} (wrong --data-dir?)`);
  const { key } = await requireMatchingRootKey(target, target.kind === "sqlite" ? target.file : "the database");
  const { createStrongroom } = await import("@strongroom/core");
  const storage =
    target.kind === "sqlite"
      ? await (await import("@strongroom/storage-sqlite")).createSqliteStorage({ filename: target.file })
      : await (await import("@strongroom/storage-postgres")).createPostgresStorage({ connectionString: target.url });
  const strongroom = await createStrongroom({ storage, rootKey: key.key });
  // TODO(audit-streams): drop this cast once `strongroom.audit` is on the Strongroom type (audit-core).
  const audit = (strongroom as unknown as { audit: { chains(): Promise<string[]>; verify(input: { chain: string } & Omit<VerifyRange, "chains">): Promise<AuditVerifyResult> } }).audit;
  try {
    const chains = range.chains.length > 0 ? range.chains : await audit.chains();
    const results: AuditVerifyResult[] = [];
    for (const chain of chains) {
      results.push(
        await audit.verify({
          chain,
          ...(range.fromSeq !== undefined ? { fromSeq: range.fromSeq } : {}),
          ...(range.toSeq !== undefined ? { toSeq: range.toSeq } : {}),
          ...(range.head ? { head: range.head } : {}),
        }),
      );
    }
    return results;
  } finally {
    await strongroom.close();
  }
}
