import { Command } from "commander";
import { SERVER_VARIABLES } from "@strongroom/http-node/variables";

/** `strongroom serve`: the server, every environment variable also a flag (a flag wins). */
export function serveCommand(): Command {
  const command = new Command("serve").description("run the Strongroom server (the default command)");
  for (const variable of SERVER_VARIABLES) {
    command.option(`--${variable.flag} <${variable.value}>`, `${variable.description} [${variable.name}]`);
  }
  return command.action(async (flags: Record<string, unknown>) => {
    // Loaded only to serve: the other commands start without the server's code.
    const { environmentWithFlags, runServer } = await import("@strongroom/http-node");
    await runServer(environmentWithFlags(process.env, flags));
  });
}
