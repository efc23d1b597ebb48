import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The real `strongroom-agent-proxy` command, from source, in its own process. */
export interface ProxyProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

const CLI = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));

export function spawnProxy(args: string[], env: Record<string, string> = {}): ProxyProcess {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => (done(), reject(new Error(`no ${pattern} in: ${output}`))), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => (done(), reject(new Error(`exited with ${code} before ${pattern}: ${output}`))));
        check();
      });
    },
  };
}
