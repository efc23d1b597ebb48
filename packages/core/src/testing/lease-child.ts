import { pathToFileURL } from "node:url";
import type { StrongroomStorage as Storage } from "../schema.js";
import { jobNode, PROBE_INTERVAL_MS, PROBE_JOB } from "./job-node.js";

/**
 * Child process of the lease-takeover test: opens storage through the given module's
 * `openStorage()`, claims the probe job's period and, inside its run, announces "running" and
 * never finishes — until the parent kills it.
 * Usage: node --import tsx lease-child.ts <opener module path>
 */
async function main() {
  const [opener] = process.argv.slice(2);
  const { openStorage } = (await import(pathToFileURL(opener).href)) as { openStorage(): Promise<Storage> };
  const storage = await openStorage();
  const node = jobNode(storage, [
    {
      name: PROBE_JOB,
      intervalMs: PROBE_INTERVAL_MS,
      run: async () => {
        process.stdout.write("running\n");
        await new Promise(() => undefined);
      },
    },
  ]);
  await node.runDue();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
