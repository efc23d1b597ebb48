import { CommanderError } from "commander";
import { CliError, EXIT } from "./exit-codes.js";
import { buildProgram, throwOnParseErrors } from "./program.js";

const program = throwOnParseErrors(buildProgram());
try {
  await program.parseAsync(process.argv);
} catch (thrown) {
  if (thrown instanceof CommanderError) {
    // --help and --version end here too, with code 0; commander has printed what it had to say.
    process.exit(thrown.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  if (thrown instanceof CliError) {
    process.stderr.write(`strongroom: ${thrown.message}\n`);
    process.exit(thrown.code);
  }
  process.stderr.write(`strongroom: ${thrown instanceof Error ? thrown.message : String(thrown)}\n`);
  process.exit(EXIT.failed);
}
