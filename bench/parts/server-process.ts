/**
 * The server as operators run it, in its own process: the built `packages/http-node/dist/cli.js`
 * (or, without a build, the sources through tsx), started with environment variables; ready once
 * `/api/status/ready` answers 200. Its stdout (the request log) is read by this process.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BUILT = fileURLToPath(new URL("../../packages/http-node/dist/cli.js", import.meta.url));
const SOURCE = fileURLToPath(new URL("../../packages/http-node/src/server/cli.ts", import.meta.url));

export interface Started {
  ms: number;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The machine's floor: a node process whose bare node:http server says it is ready. */
const BARE = [
  "--input-type=module",
  "-e",
  `import { createServer } from "node:http";
   const server = createServer((req, res) => res.end("{}"));
   server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
   process.on("SIGTERM", () => process.exit(0));`,
];

export function startServer(dataDir: string, bare = false, env: Record<string, string> = {}): Promise<Started> {
  const args = bare ? BARE : existsSync(BUILT) ? [BUILT] : ["--conditions=source", "--import", "tsx", SOURCE];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    let output = "";
    const failed = (code: number | null) => reject(new Error(`the server exited with ${code}: ${output}`));
    child.once("exit", failed);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on("data", async (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      const url = match[1]!;
      // Listening comes before ready only if something still loads; poll until it says ready.
      while (child.exitCode === null) {
        const ok = await fetch(`${url}/api/status/ready`).then((r) => r.status === 200, () => false);
        if (ok) break;
        await new Promise((r) => setTimeout(r, 2));
      }
      child.off("exit", failed);
      resolve({ ms: performance.now() - t0, url, pid: child.pid!, stop });
    });
  });
}

