import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** What `strongroom login` keeps: enough to call the server again, never a client secret. */
export interface Session {
  server: string;
  token: string;
  /** How the token was obtained, for the messages that say how to renew it. */
  method: "universal-auth" | "token";
  /** ISO time the token stops working, when the server said. */
  expiresAt?: string;
  /** PEM file of the CA that signed the server's certificate, for a server with a private CA. */
  caFile?: string;
}

/**
 * The user's config directory for Strongroom: `STRONGROOM_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/strongroom`, else `~/.config/strongroom` (`%APPDATA%\strongroom` on Windows).
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STRONGROOM_CONFIG_DIR) return env.STRONGROOM_CONFIG_DIR;
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "strongroom");
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "strongroom");
}

const sessionFile = (env?: NodeJS.ProcessEnv) => join(configDir(env), "session.json");

export async function readSession(env?: NodeJS.ProcessEnv): Promise<Session | undefined> {
  let text: string;
  try {
    text = await readFile(sessionFile(env), "utf8");
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw thrown;
  }
  const session = JSON.parse(text) as Partial<Session>;
  return typeof session.server === "string" && typeof session.token === "string" ? (session as Session) : undefined;
}

/**
 * Writes the session readable by its owner only: the directory 0700, the file 0600, written to a
 * temporary name first and renamed, so a reader never sees half a file and the token never sits
 * in a file with wider permissions (chmod again: the directory may predate us).
 */
export async function writeSession(session: Session, env?: NodeJS.ProcessEnv): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = sessionFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

export async function removeSession(env?: NodeJS.ProcessEnv): Promise<boolean> {
  const file = sessionFile(env);
  const existed = (await readSession(env).catch(() => undefined)) !== undefined;
  await rm(file, { force: true });
  return existed;
}
