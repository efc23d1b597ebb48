import { Command } from "commander";
import { auditCommand } from "./commands/audit.js";
import { backupCommand } from "./commands/backup.js";
import { exportCommand } from "./commands/export.js";
import { loginCommand, logoutCommand } from "./commands/login.js";
import { restoreCommand } from "./commands/restore.js";
import { rotateDataKeysCommand } from "./commands/rotate-data-keys.js";
import { rotateRootKeyCommand } from "./commands/rotate-root-key.js";
import { runCommand } from "./commands/run.js";
import { secretsCommand } from "./commands/secrets.js";
import { serveCommand } from "./commands/serve.js";

/** The `strongroom` command line: one parser, a subcommand per task, `serve` when none is named. */
export function buildProgram(): Command {
  const program = new Command("strongroom")
    .description("Strongroom: multi-tenant secrets, access and certificate management")
    .showHelpAfterError()
    .addHelpText(
      "after",
      "\nExit codes: 0 ok, 1 failed, 2 usage error, 3 not logged in (or session expired), 4 not found,\n5 the audit log does not verify; `run` exits with its command's code.",
    );
  program.enablePositionalOptions();
  program.addCommand(serveCommand(), { isDefault: true });
  program.addCommand(loginCommand());
  program.addCommand(logoutCommand());
  program.addCommand(secretsCommand());
  program.addCommand(exportCommand());
  program.addCommand(runCommand());
  program.addCommand(backupCommand());
  program.addCommand(restoreCommand());
  program.addCommand(rotateRootKeyCommand());
  program.addCommand(rotateDataKeysCommand());
  program.addCommand(auditCommand());
  return program;
}

/**
 * Makes parse errors throw instead of exiting, on the program and every subcommand (commander
 * copies this setting only to subcommands it creates itself), so main decides the exit code.
 */
export function throwOnParseErrors(command: Command): Command {
  command.exitOverride();
  for (const sub of command.commands) throwOnParseErrors(sub);
  return command;
}
