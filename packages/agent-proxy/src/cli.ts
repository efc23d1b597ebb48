#!/usr/bin/env node
import { startAgentProxy, type AgentProxy } from "./agent-proxy.js";
import { readCliOptions, USAGE } from "./cli/options.js";

/** Exit codes: 0 stopped by a signal, 1 could not start, 2 revoked by the server. */
const EXIT_START_FAILED = 1;
const EXIT_REVOKED = 2;

const fail = (message: string, code: number): never => {
  process.stderr.write(`strongroom-agent-proxy: ${message}\n`);
  process.exit(code);
};

async function main(): Promise<void> {
  let command;
  try {
    command = readCliOptions(process.argv.slice(2), process.env);
  } catch (thrown) {
    return fail(`${thrown instanceof Error ? thrown.message : String(thrown)}\n\n${USAGE}`, EXIT_START_FAILED);
  }
  if (command.help) return void process.stdout.write(`${USAGE}\n`);

  let proxy: AgentProxy;
  try {
    proxy = await startAgentProxy(command.options);
  } catch (thrown) {
    return fail(`could not start: ${thrown instanceof Error ? thrown.message : String(thrown)}`, EXIT_START_FAILED);
  }
  process.stderr.write(`strongroom-agent-proxy listening on ${proxy.url} (proxy ${proxy.proxyId}, CA ${proxy.caFingerprint})\n`);

  void proxy.stopped.then((stop) => {
    if (stop.reason === "revoked") fail(`stopped: ${stop.message}`, EXIT_REVOKED);
    process.exit(0);
  });
  const close = () => void proxy.close();
  process.on("SIGTERM", close);
  process.on("SIGINT", close);
  process.on("SIGHUP", () => void proxy.refresh());
}

void main();
