import { rootKeyFingerprint, rootKeyMatches } from "@strongroom/core/maintenance";
import { CliError } from "../exit-codes.js";
import { configuredRootKey, type ConfiguredRootKey, type DatabaseTarget } from "./target.js";

/** The sealed check every Strongroom database records at first start (`instance_meta`). */
export async function storedRootKeyCheck(target: DatabaseTarget, sqliteFile?: string): Promise<string | undefined> {
  if (target.kind === "sqlite" || sqliteFile) {
    const { readRow } = await import("@strongroom/storage-sqlite");
    const row = readRow(sqliteFile ?? (target as { file: string }).file, "instance_meta", "instance");
    return typeof row?.rootKeyCheck === "string" ? row.rootKeyCheck : undefined;
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    const exists = await client.query("select to_regclass('instance_meta') as t");
    if (!exists.rows[0]?.t) return undefined;
    const { rows } = await client.query(`select "rootKeyCheck" from instance_meta where id = 'instance'`);
    return rows[0]?.rootKeyCheck as string | undefined;
  } finally {
    await client.end();
  }
}

export interface RootKeyVerdict {
  readonly key: ConfiguredRootKey;
  readonly fingerprint: string;
}

/**
 * The configured root key (as the server would load it), checked against a database: without
 * it the database's contents cannot be read, so a copy is only useful with the matching key.
 */
export async function requireMatchingRootKey(target: DatabaseTarget, what: string, sqliteFile?: string): Promise<RootKeyVerdict> {
  const key = await configuredRootKey(target.dataDir);
  if (!key) {
    throw new CliError(`no root key: set STRONGROOM_ROOT_KEY or put the key in ${target.dataDir}/root.key (the one ${what} was sealed with)`);
  }
  const check = await storedRootKeyCheck(target, sqliteFile);
  const fingerprint = rootKeyFingerprint(key.key);
  if (check === undefined) throw new CliError(`${what} holds no Strongroom instance (no instance_meta row)`);
  if (!rootKeyMatches(key.key, check)) {
    throw new CliError(`${what} was sealed with a different root key than ${key.source} (fingerprint ${fingerprint}); use the key it was made with`);
  }
  return { key, fingerprint };
}
