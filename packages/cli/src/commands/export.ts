import { Command, Option } from "commander";
import { listSecrets } from "../client/secrets.js";
import { resolveTarget, type ServerOptions } from "../client/target.js";
import { EXPORT_FORMATS, formatSecrets, type ExportFormat } from "../format/export.js";
import { scopeOf, withScopeOptions, withServerOptions } from "./options.js";

/** `strongroom export`: the folder's secrets with imports and references resolved, as `run` injects them. */
export function exportCommand(): Command {
  return withScopeOptions(withServerOptions(new Command("export")))
    .description("print the secrets a process would get, as dotenv, JSON or YAML (Infisical CLI compatible)")
    .addOption(new Option("--format <format>", "output format").choices(EXPORT_FORMATS).default("dotenv"))
    .action(async (options: ServerOptions & { project?: string; env: string; path: string; format: ExportFormat }) => {
      const scope = scopeOf(options);
      const secrets = await listSecrets(await resolveTarget(options), scope, { withImports: true });
      process.stdout.write(formatSecrets(options.format, secrets, scope.projectId));
    });
}
