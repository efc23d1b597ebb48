import { createStrongroomServer, type StrongroomServer } from "./server.js";
import type { ServerEnv } from "./settings.js";

/**
 * The server as a command: starts it from `env`, says where it listens, and shuts down gracefully
 * on SIGTERM or SIGINT (a second signal exits at once). Exits 1 when it cannot start.
 */
export async function runServer(env: ServerEnv): Promise<void> {
  let running: StrongroomServer;
  try {
    running = await createStrongroomServer(env);
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    process.stderr.write(`strongroom: could not start: ${message}\n`);
    process.exit(1);
  }
  process.stdout.write(`strongroom listening on ${running.url}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal means the operator will not wait for the graceful path.
      process.stderr.write(`strongroom: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (thrown) => {
        process.stderr.write(`strongroom: shutdown failed: ${thrown instanceof Error ? thrown.message : String(thrown)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
