import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";

/** Signals passed on to the command: what a supervisor is asked to do is the command's business. */
const FORWARDED: NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"];
/**
 * Typed at a terminal, these already reach the whole foreground process group, the command
 * included; forwarding them again would deliver them twice (and many servers take a second
 * SIGINT as "exit now").
 */
const TERMINAL_SIGNALS = new Set<NodeJS.Signals>(["SIGINT", "SIGQUIT"]);

/** How a command ended, as the exit code a shell would report: its code, or 128 + the signal's number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

/**
 * One command run with the secrets in its environment, restartable with new ones. Signals sent
 * to `strongroom run` are forwarded to the command; `done` resolves with the command's exit code
 * when it ends on its own (not when `restart` stops it).
 */
export class Supervisor {
  private child: ChildProcess | undefined;
  private restarting = false;
  private ended = false;
  private finish!: (code: number) => void;
  readonly done = new Promise<number>((resolve) => (this.finish = resolve));
  private readonly forward = (signal: NodeJS.Signals) => {
    if (TERMINAL_SIGNALS.has(signal) && process.stdin.isTTY) return;
    this.child?.kill(signal);
  };

  constructor(
    private readonly argv: readonly string[],
    private readonly baseEnv: NodeJS.ProcessEnv,
    private readonly graceMs: number,
  ) {
    for (const signal of FORWARDED) process.on(signal, this.forward);
  }

  start(secrets: Record<string, string>): void {
    const [command, ...args] = this.argv;
    const child = spawn(command, args, { stdio: "inherit", env: { ...this.baseEnv, ...secrets } });
    this.child = child;
    child.once("error", (error: NodeJS.ErrnoException) => {
      // As a shell reports them: 127 not found, 126 found but not runnable.
      process.stderr.write(`strongroom: cannot run ${command}: ${error.message}\n`);
      this.end(error.code === "ENOENT" ? 127 : 126);
    });
    child.once("exit", (code, signal) => {
      if (this.child === child && !this.restarting) this.end(exitCodeOf(code, signal));
    });
  }

  /** Stops the command (SIGTERM, then SIGKILL after the grace period) and starts it again with `secrets`. */
  async restart(secrets: Record<string, string>): Promise<void> {
    if (this.ended) return;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      this.restarting = true;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), this.graceMs);
      await exited;
      clearTimeout(timer);
      this.restarting = false;
    }
    if (!this.ended) this.start(secrets);
  }

  private end(code: number): void {
    if (this.ended) return;
    this.ended = true;
    for (const signal of FORWARDED) process.off(signal, this.forward);
    this.finish(code);
  }
}
