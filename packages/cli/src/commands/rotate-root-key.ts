import { copyFile, chmod, rename, rm } from "node:fs/promises";
import { Command } from "commander";
import { generateRootKey, parseRootKey, rootKeyFingerprint, rootKeyMatches, rotateRootKey } from "@strongroom/core/maintenance";
import { CliError } from "../exit-codes.js";
import { exists } from "../operator/files.js";
import { namedNewKey, pendingKeyFile, readPendingKey, writePendingKey, type NewKeyFlags, type NewRootKey } from "../operator/new-root-key.js";
import { requireOffline } from "../operator/offline.js";
import { storedRootKeyCheck } from "../operator/root-check.js";
import { openTargetStorage } from "../operator/storage.js";
import { configuredRootKey, databaseTarget, withDatabaseOptions, type ConfiguredRootKey, type DatabaseTarget, type OperatorFlags } from "../operator/target.js";

interface RotateFlags extends OperatorFlags, NewKeyFlags {
  ignoreSessions?: boolean;
}

/**
 * `strongroom rotate-root-key`, every server stopped: rewraps every value sealed under the root
 * key with a new one in one transaction (all or nothing), then puts the new key where the old one
 * came from. The new key is saved as `root.key.new` before the database changes; a run that was
 * interrupted is finished by running the command again.
 */
export function rotateRootKeyCommand(): Command {
  return withDatabaseOptions(new Command("rotate-root-key"))
    .description("rewrap everything sealed under the root key with a new key, every server stopped (all or nothing)")
    .option("--new-key-file <file>", "read the new key (32 bytes, base64) from this file [else STRONGROOM_NEW_ROOT_KEY, else a fresh one]")
    .option("--new-key-fd <n>", "read the new key from this open file descriptor")
    .option("--ignore-sessions", "PostgreSQL: go on although other sessions are connected (only if none is a Strongroom server)")
    .addHelpText(
      "after",
      "\nThe current key is read as `serve` reads it (STRONGROOM_ROOT_KEY, else <data-dir>/root.key). Afterwards\n" +
        "root.key holds the new key and the old one is kept as root.key.old-<time> (backups made before need it);\n" +
        "with STRONGROOM_ROOT_KEY, put the new key (left in <data-dir>/root.key.new) there on every node.\n" +
        "Servers still configured with the old key refuse to start.",
    )
    .action(async (flags: RotateFlags) => {
      const target = await databaseTarget(flags);
      const current = await configuredRootKey(target.dataDir);
      if (!current) throw new CliError(`no root key: set STRONGROOM_ROOT_KEY or put the current key in ${target.dataDir}/root.key`);
      const named = await namedNewKey(flags);
      const pending = await readPendingKey(target.dataDir);
      const check = await storedRootKeyCheck(target);
      if (check === undefined) throw new CliError("the database holds no Strongroom instance (no instance_meta row); nothing to rotate");

      if (!rootKeyMatches(current.key, check)) {
        const done = [named, pending].find((k): k is NewRootKey => k !== undefined && rootKeyMatches(k.key, check));
        if (!done) {
          throw new CliError(
            `the database answers to neither the current root key from ${current.source} (fingerprint ${rootKeyFingerprint(current.key)})` +
              `${named || pending ? ` nor the new one from ${(named ?? pending)!.source}` : ""}; configure the key it was sealed with`,
          );
        }
        // An earlier run committed but stopped before installing the key: finish that.
        await install(target, current, done, done !== named);
        return;
      }

      const next = named ?? pending ?? { key: parseRootKey(generateRootKey()), source: "a fresh random key" };
      if (next.key.equals(current.key)) throw new CliError("the new root key is the current one");
      await requireOffline(target, "rotate-root-key", flags.ignoreSessions);
      await writePendingKey(target.dataDir, next.key);

      const storage = await openTargetStorage(target);
      let outcome;
      try {
        outcome = await rotateRootKey(storage, current.key, next.key);
      } finally {
        await storage.close();
      }
      if (outcome.status === "rotated") {
        const counts = Object.entries(outcome.rewrapped).map(([table, n]) => `${n} in ${table}`).join(", ");
        process.stdout.write(`rewrapped ${counts || "nothing"} under the new root key in one transaction\n`);
      }
      await install(target, current, next, next !== named);
    });
}

/**
 * Puts the new key where the current one came from, keeping the old one beside it. `onlyCopy`:
 * the new key exists nowhere but in `root.key.new` (generated here), so it is shown and kept.
 */
async function install(target: DatabaseTarget, current: ConfiguredRootKey, next: NewRootKey, onlyCopy: boolean): Promise<void> {
  const pending = pendingKeyFile(target.dataDir);
  const from = rootKeyFingerprint(current.key);
  const to = rootKeyFingerprint(next.key);
  const lines = [`root key rotated: ${from} -> ${to}`];
  if (current.file) {
    if (!(await exists(pending))) await writePendingKey(target.dataDir, next.key);
    const kept = `${current.file}.old-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await copyFile(current.file, kept);
    await chmod(kept, 0o600);
    await rename(pending, current.file);
    lines.push(
      `${current.file} now holds the new key; the old one is kept as ${kept}`,
      "  (backups made before this rotation open only with it: delete it once you no longer need them)",
    );
  } else {
    lines.push(
      `${current.source} still holds the old key: set it to the new key on every node before starting them.`,
      onlyCopy ? `The new key is in ${pending} (mode 0600) and is:\n  ${next.key.toString("base64")}` : `The new key is the one from ${next.source}.`,
      `Delete ${pending} once the new key is stored where your nodes read it.`,
    );
    if (!onlyCopy) await rm(pending, { force: true });
  }
  lines.push("Servers still configured with the old key refuse to start.", "");
  process.stdout.write(lines.join("\n"));
}
