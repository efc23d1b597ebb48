import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestApi } from "@strongroom/http-node/testing";
import { spawnProxy, type ProxyProcess } from "./spawn-proxy.js";
import { registeredProxy } from "./world.js";

/** The real `strongroom-agent-proxy` process, enrolled with the test server, and what tests look at. */
export interface RunningProxy {
  id: string;
  url: string;
  ca: string;
  process: ProxyProcess;
  /** The process's JSON log lines (stdout). */
  lines(): Record<string, any>[];
  /** Open file descriptors of the process: its sockets, listeners and files. */
  openFds(): number;
  /** Polls the server now (SIGHUP); resolves once the proxy logs that `sessionId` ended. */
  pollUntilEnded(sessionId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function launchProxy(api: TestApi, admin: string, upstreamCa: string, registration: Record<string, unknown>, limits: Record<string, number> = {}): Promise<RunningProxy> {
  const { id, enrollmentToken } = await registeredProxy(api, admin, registration);
  const dir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-attack-"));
  const caFile = join(dir, "upstream-ca.pem");
  writeFileSync(caFile, upstreamCa);
  const limitArgs = Object.entries(limits).flatMap(([name, value]) => ["--limit", `${name}=${value}`]);
  const child = spawnProxy(
    ["--server", api.url, "--listen", "127.0.0.1:0", "--data-dir", join(dir, "data"), "--allow-private-targets", "--upstream-ca", caFile, ...limitArgs],
    { STRONGROOM_ENROLLMENT_TOKEN: enrollmentToken },
  );
  const [, url] = await child.waitFor(/listening on (http:\/\/\S+)/, 120_000);
  const ca = ((await (await fetch(`${url}/_agent-vault/ca`)).json()) as { certificate: string }).certificate;
  const lines = () =>
    child
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, any>);
  return {
    id,
    url: url!,
    ca,
    process: child,
    lines,
    openFds: () => readdirSync(`/proc/${child.child.pid}/fd`).length,
    async pollUntilEnded(sessionId) {
      child.child.kill("SIGHUP");
      await child.waitFor(new RegExp(`"msg":"sessions ended"[^\n]*${sessionId}`), 10_000);
    },
    async stop() {
      if (child.child.exitCode === null) {
        child.child.kill("SIGTERM");
        await child.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
