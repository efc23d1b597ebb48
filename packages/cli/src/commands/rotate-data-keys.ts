import { Command } from "commander";
import { rotateProjectDataKey, type RotationStep } from "@strongroom/core/maintenance";
import { CliError, EXIT } from "../exit-codes.js";
import { openTargetStorage } from "../operator/storage.js";
import { configuredRootKey, databaseTarget, withDatabaseOptions, type OperatorFlags } from "../operator/target.js";

interface RotateDataKeysFlags extends OperatorFlags {
  project?: string;
  batchSize: string;
}

/**
 * `strongroom rotate-data-keys --project <id|slug>`, servers running: re-encrypts everything a
 * project's data key sealed under a fresh key, working on the database directly (with the root
 * key, as `serve` reads it) while servers go on serving; they notice each step within the key-notice
 * bound, which the command waits out (README, "Key rotation"). Run it again to resume.
 */
export function rotateDataKeysCommand(): Command {
  return withDatabaseOptions(new Command("rotate-data-keys"))
    .description("re-encrypt everything sealed under a project's data key with a fresh key, servers running")
    .option("--project <id|slug>", "the project (its id, or its slug when no other organization uses that slug)")
    .option("--batch-size <n>", "rows rewritten per transaction", "500")
    .action(async (flags: RotateDataKeysFlags) => {
      if (!flags.project) throw new CliError("which project? pass --project <id|slug>", EXIT.usage);
      const batchSize = Number(flags.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new CliError("--batch-size takes a positive whole number", EXIT.usage);
      const target = await databaseTarget(flags);
      const key = await configuredRootKey(target.dataDir);
      if (!key) throw new CliError(`no root key: set STRONGROOM_ROOT_KEY or put the key in ${target.dataDir}/root.key`);

      const { createStrongroom, RootKeyMismatchError } = await import("@strongroom/core");
      const storage = await openTargetStorage(target);
      let sr;
      try {
        sr = await createStrongroom({ storage, rootKey: key.key, log: () => {} });
      } catch (thrown) {
        await storage.close();
        if (thrown instanceof RootKeyMismatchError) throw new CliError(`the root key from ${key.source} does not open this database`);
        throw thrown;
      }
      try {
        const projectId = await resolveProject(storage, flags.project);
        const started = Date.now();
        const report = await rotateProjectDataKey(sr.context, projectId, { batchSize, onProgress: say });
        const moved = Object.entries(report.moved)
          .map(([what, n]) => `${n} ${what}`)
          .join(", ");
        process.stdout.write(
          [
            `rotated the data key of project ${projectId}${report.resumed ? " (resumed an earlier run)" : ""} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
            `  ${report.fromKeyId} -> ${report.toKeyId}; rewrapped ${moved} in ${report.passes} pass${report.passes === 1 ? "" : "es"}`,
            report.oldKey === "deleted"
              ? "  the old key is deleted: nothing refers to it any more"
              : "  the old key is kept: it belongs to the organization (the project was created on it)",
            "",
          ].join("\n"),
        );
      } finally {
        await sr.close();
      }
    });
}

function say(step: RotationStep): void {
  const line =
    step.step === "swept"
      ? `pass ${step.pass}: ${step.moved} row${step.moved === 1 ? "" : "s"} rewrapped`
      : step.step === "announced"
        ? `new data key created; waiting ${(step.waitMs / 1000).toFixed(0)} s for every server to read with it`
        : `project switched to the new key; waiting ${(step.waitMs / 1000).toFixed(0)} s for every server to write with it`;
  process.stdout.write(`${line}\n`);
}

async function resolveProject(storage: Awaited<ReturnType<typeof openTargetStorage>>, ref: string): Promise<string> {
  const byId = await storage.tables.projects.get(ref);
  if (byId) return byId.id;
  const bySlug = await storage.tables.projects.find({ slug: ref });
  if (bySlug.length === 1) return bySlug[0].id;
  if (bySlug.length === 0) throw new CliError(`no project with id or slug ${ref}`, EXIT.notFound);
  throw new CliError(`${bySlug.length} organizations have a project with slug ${ref}; pass its id (${bySlug.map((p) => p.id).join(", ")})`, EXIT.usage);
}
