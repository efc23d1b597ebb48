import { createStrongroomServer, type StrongroomServer } from "./server.js";
import type { ServerEnv } from "./settings.js";

/**
 * The server as a command: starts it from `env`, says where it listens, and shuts down gracefully
 * on SIGTERM or SIGINT (a second signal exits at once). With TLS, SIGHUP reads the certificate and
 * key files again. Exits 1 when it cannot start.
 */
export async function runServer(env: ServerEnv): Promise<void> {
  let running: StrongroomServer;
  try {
    running = await createStrongroomServer(env);
  } catch (thrown) {
    process.stderr.write(`strongroom: could not start: ${messageOf(thrown)}\n`);
    process.exit(1);
  }
  process.stdout.write(`strongroom listening on ${running.url}\n`);
  if (running.metrics) process.stdout.write(`strongroom metrics on ${running.metrics.url}\n`);

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
        process.stderr.write(`strongroom: shutdown failed: ${messageOf(thrown)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // Only with TLS: otherwise SIGHUP keeps its default meaning (the terminal went away: exit).
  if (running.url.startsWith("https:")) {
    process.on("SIGHUP", () => {
      running.reloadTls().then(
        () => process.stdout.write("strongroom: TLS certificate reloaded\n"),
        (thrown) => process.stderr.write(`strongroom: TLS certificate not reloaded, the previous one stays: ${messageOf(thrown)}\n`),
      );
    });
  }
}

const messageOf = (thrown: unknown) => (thrown instanceof Error ? thrown.message : String(thrown));
