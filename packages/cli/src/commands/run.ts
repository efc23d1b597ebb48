import { Command } from "commander";
import { listIfChanged, type SecretEntry } from "../client/secrets.js";
import { resolveTarget, type ServerOptions } from "../client/target.js";
import { CliError, EXIT } from "../exit-codes.js";
import { Supervisor } from "../run/child.js";
import { watchSecrets } from "../run/watch.js";
import { scopeOf, withScopeOptions, withServerOptions } from "./options.js";

interface RunOptions extends ServerOptions {
  project?: string;
  env: string;
  path: string;
  watch?: boolean;
  watchInterval: string;
  restartGrace: string;
}

/**
 * `strongroom run [--watch] -- <command>`: the command with the folder's secrets (imports and
 * references resolved) added to its environment. Exits with the command's exit code.
 */
export function runCommand(): Command {
  return withScopeOptions(withServerOptions(new Command("run")))
    .description("run a command with the secrets in its environment; --watch restarts it when they change")
    .argument("<command...>", "the command and its arguments, after --")
    .option("--watch", "restart the command when a secret changes (live events, else polling)")
    .option("--watch-interval <seconds>", "seconds between checks when live events are unavailable", "10")
    .option("--restart-grace <seconds>", "how long a restart waits after SIGTERM before SIGKILL", "10")
    .passThroughOptions()
    .action(async (argv: string[], options: RunOptions) => {
      const target = await resolveTarget(options);
      const scope = scopeOf(options);
      const first = await listIfChanged(target, scope, undefined);
      if (!first) throw new CliError("the server answered 304 to a request without an ETag");
      const supervisor = new Supervisor(argv, process.env, seconds(options.restartGrace, "--restart-grace") * 1000);
      supervisor.start(environmentOf(first.secrets));

      let stop = () => {};
      if (options.watch) {
        let current = environmentOf(first.secrets);
        let restarting = Promise.resolve();
        stop = watchSecrets({
          target,
          scope,
          etag: first.etag,
          pollIntervalMs: seconds(options.watchInterval, "--watch-interval") * 1000,
          log: (message) => process.stderr.write(`strongroom: ${message}\n`),
          onChange(secrets) {
            const next = environmentOf(secrets);
            if (sameEnvironment(current, next)) return;
            current = next;
            process.stderr.write("strongroom: secrets changed, restarting the command\n");
            restarting = restarting.then(() => supervisor.restart(next));
          },
        });
      }
      const code = await supervisor.done;
      stop();
      process.exit(code);
    });
}

const environmentOf = (secrets: readonly SecretEntry[]): Record<string, string> => Object.fromEntries(secrets.map((s) => [s.key, s.value]));

function sameEnvironment(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

function seconds(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new CliError(`${flag} must be a positive number of seconds, got "${text}"`, EXIT.usage);
  return value;
}
