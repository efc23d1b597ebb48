import { Command, Option } from "commander";
import { verifyChain, type AuditVerifyResult, type VerifyAnchor } from "@strongroom/core/audit";
import { readCopy } from "../audit/copy.js";
import { verifyDatabase } from "../audit/database.js";
import { CliError, EXIT } from "../exit-codes.js";
import { verdictLine } from "../format/audit-verdict.js";
import { databaseTarget, withDatabaseOptions, type OperatorFlags } from "../operator/target.js";

interface VerifyFlags extends OperatorFlags {
  file?: string[];
  chain?: string[];
  project?: string[];
  from?: number;
  to?: number;
  head?: VerifyAnchor;
  json?: boolean;
}

/** `strongroom audit …`: the audit log as operators check it. */
export function auditCommand(): Command {
  return new Command("audit").description("the audit log: verify that no entry was edited, removed, inserted or reordered").addCommand(verifyCommand());
}

function verifyCommand(): Command {
  return withDatabaseOptions(new Command("verify"))
    .description("walk audit chains and name the first entry that does not fit (exit 5 when one does not)")
    .option("--file <files...>", "verify a copy the file sink wrote (STRONGROOM_AUDIT_FILE and its rotations) instead of the database")
    .option("--chain <ids...>", "only these chains (project:<id>, org:<id>, instance); default every chain")
    .option("--project <ids...>", "only these projects' chains (same as --chain project:<id>)")
    .addOption(new Option("--from <seq>", "start at this entry (the one before it is trusted)").argParser(seqNumber))
    .addOption(new Option("--to <seq>", "stop at this entry").argParser(seqNumber))
    .addOption(new Option("--head <seq:hash>", "a head noted earlier (GET …/audit-logs/head): a tail cut off since is reported").argParser(anchor))
    .option("--json", "print the verdicts as JSON")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  strongroom audit verify --data-dir /var/lib/strongroom            every chain in the SQLite database",
        "  strongroom audit verify --database-url \"$DATABASE_URL\" --project <id>",
        "  strongroom audit verify --file /var/log/strongroom/audit.log*      a streamed copy, rotations included",
      ].join("\n"),
    )
    .action(async (flags: VerifyFlags) => {
      const chains = [...(flags.chain ?? []), ...(flags.project ?? []).map((id) => `project:${id}`)];
      if (flags.head && chains.length !== 1) throw new CliError("--head names one chain's head: pass exactly one --chain or --project", EXIT.usage);
      const results = flags.file ? await verifyCopy(flags.file, chains, flags) : await verifyDatabase(await databaseTarget(flags), { chains, fromSeq: flags.from, toSeq: flags.to, head: flags.head });
      if (results.length === 0) throw new CliError("no audit entries to verify");
      process.stdout.write(flags.json ? `${JSON.stringify(results, null, 2)}\n` : `${results.map(verdictLine).join("\n")}\n`);
      if (results.some((r) => !r.ok)) process.exitCode = EXIT.tampered;
    });
}

/**
 * A streamed copy starts where the sink started (or where retention cut), so each chain is
 * anchored at the entry before its first line; gaps, edits and reorderings after it are found.
 * A head noted earlier must be in the copy with its hash (the copy may have grown past it).
 */
async function verifyCopy(files: readonly string[], only: readonly string[], flags: VerifyFlags): Promise<AuditVerifyResult[]> {
  const copy = await readCopy(files);
  const chains = only.length > 0 ? only : [...copy.keys()].sort();
  return chains.map((chain) => {
    const entries = (copy.get(chain) ?? []).filter((e) => (flags.from === undefined || e.seq >= flags.from) && (flags.to === undefined || e.seq <= flags.to));
    if (entries.length === 0) throw new CliError(`the copy holds no entries of ${chain}${flags.from || flags.to ? " in that range" : ""}`, EXIT.notFound);
    const anchor = { seq: entries[0].seq - 1, hash: entries[0].prevHash };
    const walked = verifyChain(chain, entries, { anchor });
    const head = flags.head;
    if (!walked.ok || !head || head.seq <= anchor.seq) return walked;
    if (entries[entries.length - 1].seq <= head.seq) return verifyChain(chain, entries, { anchor, head });
    const at = entries.find((e) => e.seq === head.seq);
    return at?.hash === head.hash ? walked : { ok: false, chain, checked: walked.checked, firstBad: { seq: head.seq, id: at?.id ?? null, reason: "hash-mismatch" } };
  });
}

function seqNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`a sequence number is a positive integer, got "${value}"`, EXIT.usage);
  return n;
}

function anchor(value: string): VerifyAnchor {
  const match = /^(\d+):([0-9a-f]{64})$/.exec(value.trim());
  if (!match) throw new CliError(`--head is <seq>:<sha256 hex>, got "${value}"`, EXIT.usage);
  return { seq: Number(match[1]), hash: match[2] };
}
