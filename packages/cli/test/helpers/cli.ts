import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The real command, as npm links it: the committed bin file loading the built code. */
export const CLI = fileURLToPath(new URL("../../bin/strongroom.js", import.meta.url));

export function requireBuilt(): void {
  if (!existsSync(fileURLToPath(new URL("../../dist/main.js", import.meta.url)))) {
    throw new Error("packages/cli is not built: run `npm run build` (npm install does it) before these tests");
  }
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), `strongroom-cli-${prefix}-`));

/** The environment every invocation starts from: the test's own, without any Strongroom setting. */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(STRONGROOM_|DATABASE_URL$|DATA_DIR$|PORT$|HOST$|METRICS_|TLS_)/.test(key)) env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `strongroom <args>` to completion. */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(options.env ?? {}), stdio: ["pipe", "pipe", "pipe"] });
  child.stdin!.end(options.input ?? "");
  return collect(child, options.timeoutMs ?? 60_000);
}

/** Starts `strongroom <args>` and hands back the process with its output so far. */
export function startCli(args: string[], options: { env?: Record<string, string | undefined> } = {}) {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(options.env ?? {}), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Resolves once stdout matches `pattern` (fails after `timeoutMs`). */
    async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stdout);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`exited before ${pattern}: ${stdout}\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}: ${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

function collect(child: ChildProcess, timeoutMs: number): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`strongroom did not finish in ${timeoutMs} ms: ${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      // Let the pipes drain what was written just before exiting.
      setImmediate(() => resolve({ code, signal, stdout, stderr }));
    });
  });
}

export interface ServerProcess {
  url: string;
  dataDir: string;
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `strongroom serve` on a free loopback port with SQLite in `dataDir` (a new one by default). */
export async function startServer(options: { dataDir?: string; env?: Record<string, string | undefined>; args?: string[] } = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? tempDir("data");
  const server = startCli(["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir, ...(options.args ?? [])], { env: options.env });
  const [, url] = await server.waitFor(/listening on (https?:\/\/\S+)/, 60_000);
  return {
    url,
    dataDir,
    output: () => server.stdout() + server.stderr(),
    async stop() {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
      return server.exited;
    },
  };
}
