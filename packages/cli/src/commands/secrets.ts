import { Command } from "commander";
import { deleteSecrets, getSecret, listSecrets, setSecrets, type SecretEntry } from "../client/secrets.js";
import { resolveTarget, type ServerOptions } from "../client/target.js";
import { CliError, EXIT } from "../exit-codes.js";
import { table } from "../format/table.js";
import { scopeOf, withScopeOptions, withServerOptions } from "./options.js";

type Options = ServerOptions & { project?: string; env: string; path: string; plain?: boolean };

const sub = (name: string, description: string) => withScopeOptions(withServerOptions(new Command(name).description(description)));

/** `strongroom secrets list|get|set|delete`: a table for people, `--plain` for scripts. */
export function secretsCommand(): Command {
  const secrets = new Command("secrets").description("list, read, set and delete the secrets of a folder");

  secrets.addCommand(
    sub("list", "list the folder's secrets (without imports)")
      .option("--plain", "one name per line, no values")
      .action(async (options: Options) => {
        const list = await listSecrets(await resolveTarget(options), scopeOf(options), { withImports: false });
        process.stdout.write(options.plain ? list.map((s) => `${s.key}\n`).join("") : secretTable(list));
      }),
  );

  secrets.addCommand(
    sub("get", "read secrets by name (exit 4 when one does not exist)")
      .argument("<names...>", "secret names")
      .option("--plain", "only the values, one per line, in the order asked")
      .action(async (names: string[], options: Options) => {
        const target = await resolveTarget(options);
        const scope = scopeOf(options);
        const found: SecretEntry[] = [];
        for (const name of names) found.push(await getSecret(target, scope, name));
        process.stdout.write(options.plain ? found.map((s) => `${s.value}\n`).join("") : secretTable(found));
      }),
  );

  secrets.addCommand(
    sub("set", "create or update secrets: NAME=value, or NAME alone to read its value from standard input")
      .argument("<pairs...>", "NAME=value pairs")
      .option("--plain", "print nothing on success")
      .action(async (pairs: string[], options: Options) => {
        const target = await resolveTarget(options);
        const parsed = await parsePairs(pairs);
        const written = await setSecrets(target, scopeOf(options), parsed);
        if (!options.plain) process.stdout.write(table(["NAME", "VERSION"], written.map((s) => [s.key, String(s.version)])));
      }),
  );

  secrets.addCommand(
    sub("delete", "delete secrets by name, all or none (exit 4 when one does not exist)")
      .argument("<names...>", "secret names")
      .option("--plain", "print nothing on success")
      .action(async (names: string[], options: Options) => {
        await deleteSecrets(await resolveTarget(options), scopeOf(options), names);
        if (!options.plain) process.stderr.write(`deleted ${names.join(", ")}\n`);
      }),
  );
  return secrets;
}

function secretTable(list: readonly SecretEntry[]): string {
  return table(["NAME", "VALUE", "TYPE"], list.map((s) => [s.key, s.value, s.type]));
}

/**
 * `NAME=value` (split at the first `=`), or `NAME` alone to take the value from standard input
 * (so it never appears in the process list). Standard input serves one name at most.
 */
async function parsePairs(pairs: readonly string[]): Promise<{ key: string; value: string }[]> {
  const fromStdin = pairs.filter((p) => !p.includes("="));
  if (fromStdin.length > 1) throw new CliError(`only one name may take its value from standard input, got ${fromStdin.join(", ")}`, EXIT.usage);
  const out: { key: string; value: string }[] = [];
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at === 0) throw new CliError(`"${pair}" has no name before "="`, EXIT.usage);
    out.push(at < 0 ? { key: pair, value: await readStdin() } : { key: pair.slice(0, at), value: pair.slice(at + 1) });
  }
  return out;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("value (end with Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is the end of the line typed or echoed, not part of the value.
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}
