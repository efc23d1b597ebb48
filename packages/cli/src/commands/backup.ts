import { rename, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Command } from "commander";
import { CliError } from "../exit-codes.js";
import { progressBar } from "../format/progress.js";
import { exists, shellWord } from "../operator/files.js";
import { requireMatchingRootKey } from "../operator/root-check.js";
import { databaseTarget, redactedUrl, withDatabaseOptions, type OperatorFlags } from "../operator/target.js";

/**
 * `strongroom backup <file>`: SQLite's online backup of a running instance, verified before it
 * takes its name; for PostgreSQL, the pg_dump recipe. Either way the root key is checked against
 * the database: a backup is readable only with that key, kept apart from it.
 */
export function backupCommand(): Command {
  return withDatabaseOptions(new Command("backup"))
    .description("back up the database while the server runs (SQLite online backup, verified; PostgreSQL: the pg_dump recipe)")
    .argument("<file>", "where to write the backup (must not exist; mode 0600)")
    .action(async (file: string, flags: OperatorFlags) => {
      const target = await databaseTarget(flags);
      const destination = resolve(file);
      if (await exists(destination)) throw new CliError(`${destination} already exists; choose a new name`);

      if (target.kind === "postgres") {
        const { fingerprint, key } = await requireMatchingRootKey(target, "the database");
        process.stdout.write(
          [
            "PostgreSQL is backed up with its own tools (consistent while servers run):",
            "",
            `  pg_dump --format=custom --no-owner --file=${shellWord(destination)} "$DATABASE_URL"`,
            "",
            `DATABASE_URL is ${redactedUrl(target.url)}.`,
            `The dump is readable only with the root key from ${key.source} (fingerprint ${fingerprint}):`,
            "keep that key, apart from the dump. Restore with `strongroom restore` for the recipe.",
            "",
          ].join("\n"),
        );
        return;
      }

      const { backupSqlite, inspectSqlite } = await import("@strongroom/storage-sqlite");
      if (!(await exists(target.file))) throw new CliError(`no database at ${target.file} (wrong --data-dir?)`);
      const { fingerprint, key } = await requireMatchingRootKey(target, target.file);
      const partial = `${destination}.partial`;
      const bar = progressBar("backing up");
      let snapshot;
      try {
        snapshot = await backupSqlite(target.file, partial, (p) => bar.update(p.totalPages - p.remainingPages, p.totalPages));
      } finally {
        bar.finish();
      }
      // The copy must be sound and hold exactly the snapshot's rows before it takes its name.
      const copy = inspectSqlite(partial);
      const wrong = Object.keys({ ...snapshot, ...copy.counts }).filter((table) => snapshot[table] !== copy.counts[table]);
      if (copy.integrity.join() !== "ok" || wrong.length > 0) {
        await rm(partial, { force: true });
        throw new CliError(
          `the backup failed verification (${copy.integrity.join("; ")}${wrong.length ? `; row counts differ in ${wrong.join(", ")}` : ""}); nothing was written`,
        );
      }
      await rename(partial, destination);
      const rows = Object.values(snapshot).reduce((a, b) => a + b, 0);
      process.stdout.write(
        [
          `backed up ${target.file} to ${destination}`,
          `  ${Object.keys(snapshot).length} tables, ${rows} rows, ${(await stat(destination)).size} bytes; integrity check ok, row counts match`,
          `  readable only with the root key from ${key.source} (fingerprint ${fingerprint}); keep that key, apart from the backup`,
          "",
        ].join("\n"),
      );
    });
}
