import { readFileSync } from "node:fs";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseRootKey } from "@strongroom/core/maintenance";
import { CliError, EXIT } from "../exit-codes.js";

/**
 * Where `rotate-root-key` takes the new key from: a file, a file descriptor or a variable, as the
 * server takes the current one — never from the command line, which `ps` shows to everyone.
 */
export interface NewKeyFlags {
  newKeyFile?: string;
  newKeyFd?: string;
}

export interface NewRootKey {
  readonly key: Buffer;
  readonly source: string;
}

/** The key the operator named, if any (at most one of `--new-key-file`, `--new-key-fd`, `STRONGROOM_NEW_ROOT_KEY`). */
export async function namedNewKey(flags: NewKeyFlags, env: NodeJS.ProcessEnv = process.env): Promise<NewRootKey | undefined> {
  const fromEnv = env.STRONGROOM_NEW_ROOT_KEY?.trim() || undefined;
  const given = [flags.newKeyFile, flags.newKeyFd, fromEnv].filter((v) => v !== undefined);
  if (given.length > 1) throw new CliError("name the new key once: --new-key-file, --new-key-fd or STRONGROOM_NEW_ROOT_KEY", EXIT.usage);
  if (flags.newKeyFile) return parsed(await readFile(flags.newKeyFile, "utf8"), flags.newKeyFile);
  if (flags.newKeyFd !== undefined) {
    const fd = Number(flags.newKeyFd);
    if (!Number.isInteger(fd) || fd < 0) throw new CliError("--new-key-fd takes a file descriptor number", EXIT.usage);
    return parsed(readFileSync(fd, "utf8"), `file descriptor ${fd}`);
  }
  if (fromEnv) return parsed(fromEnv, "STRONGROOM_NEW_ROOT_KEY");
  return undefined;
}

/**
 * `<dataDir>/root.key.new`: the new key, written (0600) before the database changes, so a run
 * that stops after its commit never loses the only key that opens the database.
 */
export const pendingKeyFile = (dataDir: string) => join(dataDir, "root.key.new");

export async function readPendingKey(dataDir: string): Promise<NewRootKey | undefined> {
  const file = pendingKeyFile(dataDir);
  try {
    return parsed(await readFile(file, "utf8"), file);
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw thrown;
  }
}

export async function writePendingKey(dataDir: string, key: Buffer): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = pendingKeyFile(dataDir);
  const partial = `${file}.partial`;
  await writeFile(partial, `${key.toString("base64")}\n`, { mode: 0o600 });
  await chmod(partial, 0o600);
  await rename(partial, file);
  return file;
}

function parsed(value: string, source: string): NewRootKey {
  try {
    return { key: parseRootKey(value), source };
  } catch {
    throw new CliError(`${source}: the root key must be 32 bytes, base64-encoded`);
  }
}
