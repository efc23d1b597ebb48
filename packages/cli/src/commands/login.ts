import { Command, Option } from "commander";
import { expectStatus } from "../client/errors.js";
import { call } from "../client/http.js";
import { DEFAULT_SERVER } from "../client/target.js";
import { CliError, EXIT } from "../exit-codes.js";
import { removeSession, writeSession, type Session } from "../session/store.js";

interface LoginOptions {
  server?: string;
  caFile?: string;
  clientId?: string;
  clientSecret?: string;
  token?: string;
  plain?: boolean;
}

/**
 * `strongroom login`: universal auth (a machine identity's client id and secret) or an existing
 * access token, checked against the server and saved in the config directory (mode 0600). Only
 * the access token is kept, never the client secret: when it expires, log in again.
 */
export function loginCommand(): Command {
  return new Command("login")
    .description("log in with universal auth or an access token and save the session (mode 0600)")
    .option("--server <url>", `server URL [STRONGROOM_URL, default ${DEFAULT_SERVER}]`)
    .option("--ca-file <file>", "PEM file of the CA that signed the server's certificate (kept in the session) [STRONGROOM_CA_FILE]")
    .addOption(new Option("--client-id <id>", "universal auth client id").env("STRONGROOM_CLIENT_ID"))
    .addOption(new Option("--client-secret <secret>", "universal auth client secret; a flag shows in `ps`, prefer the variable").env("STRONGROOM_CLIENT_SECRET"))
    .addOption(new Option("--token <token>", "an access token to use instead of universal auth").env("STRONGROOM_TOKEN"))
    .option("--plain", "print only the access token (for scripts) instead of saving a session")
    .action(async (options: LoginOptions) => {
      const server = options.server ?? process.env.STRONGROOM_URL ?? DEFAULT_SERVER;
      const caFile = options.caFile ?? process.env.STRONGROOM_CA_FILE;
      const session = options.token ? await checkToken(server, caFile, options.token) : await universalAuth(server, caFile, options);
      if (options.plain) {
        process.stdout.write(`${session.token}\n`);
        return;
      }
      const file = await writeSession(session);
      const until = session.expiresAt ? ` until ${session.expiresAt}` : "";
      process.stderr.write(`logged in to ${server}${until}; session saved in ${file}\n`);
    });
}

export function logoutCommand(): Command {
  return new Command("logout").description("forget the saved session").action(async () => {
    process.stderr.write((await removeSession()) ? "logged out\n" : "no session was saved\n");
  });
}

async function universalAuth(server: string, caFile: string | undefined, options: LoginOptions): Promise<Session> {
  if (!options.clientId || !options.clientSecret) {
    throw new CliError("pass --client-id and --client-secret (or STRONGROOM_CLIENT_ID/STRONGROOM_CLIENT_SECRET), or --token", EXIT.usage);
  }
  const answer = await call({ server, caFile }, "POST", "/api/v1/auth/universal-auth/login", {
    body: { clientId: options.clientId, clientSecret: options.clientSecret },
  });
  if (answer.status === 401) throw new CliError("the server refused the client id or secret", EXIT.unauthenticated);
  const { accessToken, expiresIn } = expectStatus(answer, "logging in") as { accessToken: string; expiresIn?: number };
  return {
    server,
    token: accessToken,
    method: "universal-auth",
    ...(expiresIn ? { expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString() } : {}),
    ...(caFile ? { caFile } : {}),
  };
}

/**
 * Asks the server whether it accepts the token: an authenticated route called without its
 * inputs answers 401 for a token it does not know and a validation error for one it does.
 */
async function checkToken(server: string, caFile: string | undefined, token: string): Promise<Session> {
  const answer = await call({ server, caFile, token }, "GET", "/api/v1/folders");
  if (answer.status === 401) throw new CliError("the server does not accept this token", EXIT.unauthenticated);
  if (answer.status >= 500) expectStatus(answer, "checking the token");
  return { server, token, method: "token", ...(caFile ? { caFile } : {}) };
}
