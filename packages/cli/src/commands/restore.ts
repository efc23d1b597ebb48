import { chmod, copyFile, mkdir, rename, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { Command } from "commander";
import { rootKeyFingerprint } from "@strongroom/core/maintenance";
import { CliError } from "../exit-codes.js";
import { requireMatchingRootKey } from "../operator/root-check.js";
import { configuredRootKey, databaseTarget, redactedUrl, withDatabaseOptions, type OperatorFlags } from "../operator/target.js";
import { exists, shellWord } from "../operator/files.js";

/**
 * `strongroom restore <file>`: puts a backup in place of the SQLite database, with every server
 * stopped (refused while any process has the database open). The backup must pass its integrity
 * check and open with the configured root key; the database it replaces is kept beside it.
 */
export function restoreCommand(): Command {
  return withDatabaseOptions(new Command("restore"))
    .description("replace the database with a backup, servers stopped (PostgreSQL: the pg_restore recipe)")
    .argument("<file>", "a file written by `strongroom backup`")
    .action(async (file: string, flags: OperatorFlags) => {
      const target = await databaseTarget(flags);
      const backup = resolve(file);
      if (!(await exists(backup))) throw new CliError(`no backup at ${backup}`);

      if (target.kind === "postgres") {
        const key = await configuredRootKey(target.dataDir);
        process.stdout.write(
          [
            "PostgreSQL is restored with its own tools, every server stopped:",
            "",
            `  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ${shellWord(backup)}`,
            "",
            `DATABASE_URL is ${redactedUrl(target.url)}.`,
            key
              ? `Servers will start only if the dump was made under the root key from ${key.source} (fingerprint ${rootKeyFingerprint(key.key)}).`
              : "Set STRONGROOM_ROOT_KEY to the root key the dump was made under before starting a server.",
            "",
          ].join("\n"),
        );
        return;
      }

      const { assertNotInUse, inspectSqlite, DatabaseInUseError } = await import("@strongroom/storage-sqlite");
      const inspection = inspectSqlite(backup);
      if (inspection.integrity.join() !== "ok") throw new CliError(`${backup} fails its integrity check: ${inspection.integrity.join("; ")}`);
      const { fingerprint, key } = await requireMatchingRootKey(target, backup, backup);

      await mkdir(target.dataDir, { recursive: true, mode: 0o700 });
      let kept: string | undefined;
      if (await exists(target.file)) {
        try {
          assertNotInUse(target.file);
        } catch (thrown) {
          if (thrown instanceof DatabaseInUseError) throw new CliError(`${thrown.message}; restore needs every server stopped`);
          throw thrown;
        }
        // The replaced database moves aside with its WAL (a crashed server may have left one): a
        // WAL follows its database's name, and one left under the new file would corrupt it.
        kept = `${target.file}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
        for (const suffix of ["-wal", "-shm"]) await moveIfPresent(`${target.file}${suffix}`, `${kept}${suffix}`);
        await rename(target.file, kept);
      }
      const incoming = `${target.file}.restoring`;
      await copyFile(backup, incoming);
      await chmod(incoming, 0o600);
      await rename(incoming, target.file);
      const rows = Object.values(inspection.counts).reduce((a, b) => a + b, 0);
      process.stdout.write(
        [
          `restored ${backup} to ${target.file} (${rows} rows; integrity check ok; root key ${fingerprint} from ${key.source})`,
          ...(kept ? [`  the database it replaced is kept as ${kept}`] : []),
          "",
        ].join("\n"),
      );
    });
}

async function moveIfPresent(from: string, to: string): Promise<void> {
  if (await exists(from)) await rename(from, to);
  else await rm(to, { force: true });
}
