import { CliError, EXIT } from "../exit-codes.js";
import { readSession, type Session } from "../session/store.js";
import type { ServerTarget } from "./http.js";

/** The options every command that talks to a server accepts. */
export interface ServerOptions {
  server?: string;
  caFile?: string;
  token?: string;
}

export const DEFAULT_SERVER = "http://localhost:8080";

/**
 * Where to send a command and with which token. Each value comes from, in order: its flag, its
 * environment variable (`STRONGROOM_URL`, `STRONGROOM_TOKEN`, `STRONGROOM_CA_FILE`), the saved
 * session. A token is needed: without one the answer is exit code 3 and how to log in.
 */
export async function resolveTarget(options: ServerOptions, env: NodeJS.ProcessEnv = process.env): Promise<ServerTarget & { token: string }> {
  const session = await readSession(env);
  const server = options.server ?? env.STRONGROOM_URL ?? session?.server ?? DEFAULT_SERVER;
  const token = options.token ?? env.STRONGROOM_TOKEN ?? (session && sameServer(session, server) ? session.token : undefined);
  const caFile = options.caFile ?? env.STRONGROOM_CA_FILE ?? (session && sameServer(session, server) ? session.caFile : undefined);
  if (!token) {
    throw new CliError(`not logged in to ${server}: run \`strongroom login\` (or set STRONGROOM_TOKEN)`, EXIT.unauthenticated);
  }
  if (session && token === session.token && session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) {
    throw new CliError(`the session for ${server} expired at ${session.expiresAt}: run \`strongroom login\` again`, EXIT.unauthenticated);
  }
  return { server, token, caFile };
}

/** A saved session's token is only sent to the server it was issued by. */
const sameServer = (session: Session, server: string) => new URL(session.server).origin === new URL(server).origin;
