import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "@strongroom/core/zod";
import { DATA_DIRECTORY, exposureProblem } from "./file-exposure.js";
import { SEALING_KEY_BYTES, Sealer } from "./sealing.js";

/**
 * The proxy's data directory:
 *
 * - `proxy.key`: 32 random bytes (base64), mode 0600, created on first start. It seals what is
 *   secret in the state file. It can instead come from outside (`STRONGROOM_AGENT_PROXY_KEY`), so
 *   a copy of the directory alone does not yield the CA key or the access token.
 * - `state.json`: the CA certificate (public), its private key and the proxy access token (both
 *   sealed with AES-256-GCM), and which server the proxy enrolled with. Written whole, atomically.
 */
export const KEY_FILE = "proxy.key";
export const STATE_FILE = "state.json";

const sealed = z.object({ iv: z.string(), tag: z.string(), data: z.string() });

const stateSchema = z.object({
  version: z.literal(1),
  ca: z.object({ certificate: z.string(), privateKey: sealed }),
  enrollment: z
    .object({
      server: z.string(),
      proxyId: z.string(),
      name: z.string(),
      accessToken: sealed,
      /** SHA-256 of the enrollment token used, so a restart with the same (spent) token does not try it again. */
      enrollmentTokenHash: z.string(),
    })
    .nullable(),
});

export type StoredState = z.infer<typeof stateSchema>;

const isPosix = process.platform !== "win32";

/**
 * Creates the directory (mode 0700) on first start, and refuses one another OS user owns or can
 * read: whoever can read it can decrypt the proxy's token (unless the key comes from elsewhere)
 * and use it to ask the server for credentials.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (!isPosix) return;
  const problem = exposureProblem(dir, await stat(dir), process.getuid!(), DATA_DIRECTORY);
  if (problem) throw new Error(problem);
}

/** Reads the key file, creating it on first start; refuses one that other users can read. */
export async function loadSealer(dir: string, externalKey?: Buffer): Promise<Sealer> {
  if (externalKey) return new Sealer(externalKey);
  const path = join(dir, KEY_FILE);
  try {
    await writeFile(path, `${randomBytes(SEALING_KEY_BYTES).toString("base64")}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (isPosix) {
    const mode = (await stat(path)).mode & 0o777;
    if (mode & 0o077) {
      throw new Error(`${path} can be read by other users (mode ${mode.toString(8).padStart(4, "0")}); run chmod 600 on it`);
    }
  }
  const key = Buffer.from((await readFile(path, "utf8")).trim(), "base64");
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`${path} does not hold a ${SEALING_KEY_BYTES}-byte base64 key`);
  return new Sealer(key);
}

export async function readState(dir: string): Promise<StoredState | null> {
  let text: string;
  try {
    text = await readFile(join(dir, STATE_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const parsed = stateSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${join(dir, STATE_FILE)} is not a state file this proxy can read`);
  return parsed.data;
}

/** Rename over the old file, so a crash mid-write never leaves a half state (and a lost CA) behind. */
export async function writeState(dir: string, state: StoredState): Promise<void> {
  const path = join(dir, STATE_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  if (isPosix) await chmod(temporary, 0o600);
  await rename(temporary, path);
}
