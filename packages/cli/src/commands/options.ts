import { Option, type Command } from "commander";
import type { SecretScope } from "../client/secrets.js";
import { CliError, EXIT } from "../exit-codes.js";

/** `--server`, `--ca-file`, `--token`: where to call and as whom (flag, then variable, then session). */
export function withServerOptions(command: Command): Command {
  return command
    .option("--server <url>", "server URL [STRONGROOM_URL, else the session's, else http://localhost:8080]")
    .option("--ca-file <file>", "PEM file of the CA that signed the server's certificate [STRONGROOM_CA_FILE]")
    .option("--token <token>", "access token instead of the session's; a flag shows in `ps`, prefer the variable [STRONGROOM_TOKEN]");
}

/** `--project`, `--env`, `--path`: which secrets. */
export function withScopeOptions(command: Command): Command {
  return command
    .addOption(new Option("--project <id>", "project id [STRONGROOM_PROJECT_ID]").env("STRONGROOM_PROJECT_ID"))
    .addOption(new Option("--env <slug>", "environment slug").env("STRONGROOM_ENV").default("dev"))
    .option("--path <path>", "folder path", "/");
}

export function scopeOf(options: { project?: string; env: string; path: string }): SecretScope {
  if (!options.project) throw new CliError("which project? pass --project <id> or set STRONGROOM_PROJECT_ID", EXIT.usage);
  return { projectId: options.project, environment: options.env, secretPath: options.path };
}
