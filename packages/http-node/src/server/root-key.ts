import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generateRootKey, parseRootKey } from "@strongroom/core";

/**
 * The root key from `STRONGROOM_ROOT_KEY`, else from `<dataDir>/root.key`, created there (owner
 * read/write only) on first start. Fails with a message naming where the bad key came from.
 */
export async function loadRootKey(fromEnv: string | undefined, dataDir: string): Promise<string> {
  if (fromEnv) return checked(fromEnv, "STRONGROOM_ROOT_KEY");
  const file = join(dataDir, "root.key");
  const existing = await readIfPresent(file);
  if (existing !== undefined) return checked(existing, file);
  const key = generateRootKey();
  try {
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch (thrown) {
    // Another process started at the same moment and wrote its key first: use that one.
    if ((thrown as NodeJS.ErrnoException).code === "EEXIST") return checked(await readFile(file, "utf8"), file);
    throw thrown;
  }
}

function checked(value: string, source: string): string {
  try {
    parseRootKey(value);
  } catch {
    throw new Error(`${source}: the root key must be 32 bytes, base64-encoded`);
  }
  return value.trim();
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw thrown;
  }
}
