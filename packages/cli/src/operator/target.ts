import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { parseRootKey } from "@strongroom/core/maintenance";
import { CliError } from "../exit-codes.js";

/** The database an operator command works on, found as the server finds it. */
export type DatabaseTarget =
  | { readonly kind: "sqlite"; readonly dataDir: string; readonly file: string }
  | { readonly kind: "postgres"; readonly dataDir: string; readonly url: string };

export interface OperatorFlags {
  dataDir?: string;
  databaseUrl?: string;
}

/** `--data-dir` and `--database-url`, the server's `DATA_DIR` and `DATABASE_URL`. */
export function withDatabaseOptions(command: Command): Command {
  return command
    .option("--data-dir <dir>", "the server's data directory (SQLite database and root.key) [DATA_DIR, default ./data]")
    .option("--database-url <url>", "postgres:// URL when the server runs on PostgreSQL [DATABASE_URL]");
}

/** Settings read exactly as `strongroom serve` reads them, flags over variables. */
export async function databaseTarget(flags: OperatorFlags, env: NodeJS.ProcessEnv = process.env): Promise<DatabaseTarget> {
  const { readServerSettings } = await import("@strongroom/http-node");
  const settings = readServerSettings({
    ...env,
    ...(flags.dataDir ? { DATA_DIR: flags.dataDir } : {}),
    ...(flags.databaseUrl ? { DATABASE_URL: flags.databaseUrl } : {}),
    // Operator commands do not listen: a PORT meant for the server must not stop them.
    PORT: undefined,
  });
  return settings.postgresUrl
    ? { kind: "postgres", dataDir: settings.dataDir, url: settings.postgresUrl }
    : { kind: "sqlite", dataDir: settings.dataDir, file: join(settings.dataDir, "strongroom.db") };
}

/** Where the server would take its root key from, and the key; undefined when it has none yet. */
export interface ConfiguredRootKey {
  readonly key: Buffer;
  /** `STRONGROOM_ROOT_KEY`, or the key file's path. */
  readonly source: string;
  readonly file?: string;
}

export async function configuredRootKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<ConfiguredRootKey | undefined> {
  const fromEnv = env.STRONGROOM_ROOT_KEY?.trim();
  if (fromEnv) return { key: checked(fromEnv, "STRONGROOM_ROOT_KEY"), source: "STRONGROOM_ROOT_KEY" };
  const file = join(dataDir, "root.key");
  try {
    return { key: checked(await readFile(file, "utf8"), file), source: file, file };
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw thrown;
  }
}

function checked(value: string, source: string): Buffer {
  try {
    return parseRootKey(value);
  } catch {
    throw new CliError(`${source}: the root key must be 32 bytes, base64-encoded`);
  }
}

/** A PostgreSQL URL without its password, fit to print. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
