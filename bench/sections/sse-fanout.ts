/**
 * SSE fan-out: N subscribers hold `POST /api/v1/events/subscribe/project-events` streams open on
 * one server process; one secret write (through the core, committed to SQLite, published on the
 * bus) must reach every one of them. Measured: the time from just before the write to each
 * subscriber's receipt of the event (p50, p99), and the server's memory per open stream (RSS and
 * heap after a forced GC, before and after the streams open, divided by N).
 *
 * Three processes, so that neither load generation nor measurement shares the server's event
 * loop: this one coordinates, a forked server runs Strongroom (or, as the baseline, a bare
 * node:http server holding the same number of SSE responses and writing the same frame to each),
 * and a forked subscriber process opens raw sockets and timestamps the first chunk carrying the
 * round's event id. Both children are this file, started with SSE_FANOUT_ROLE set; the machine's
 * wall clock (performance.timeOrigin + now) relates their timestamps.
 *
 * Each stream needs a file descriptor on both sides: N = 10,000 needs `ulimit -n` above ~10,100.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const LATENCY_TARGET_MS = 250;
const MEMORY_TARGET_KB = 30;
const PATH = "/api/v1/events/subscribe/project-events";
/** The per-actor, per-project stream limit: tokens are shared by at most this many subscribers. */
const STREAMS_PER_TOKEN = 5;
/** Subscription requests in flight at once while connecting. */
const CONNECT_CONCURRENCY = 100;
const ROUND_TIMEOUT_MS = 60_000;
/**
 * Rounds run before the measured ones, for every process's JIT to settle: the figure is the
 * steady state of a server that has delivered events before. The cold rounds are logged too.
 */
const WARM_UP_ROUNDS = 2;

const SELF = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Messages between the coordinator and the children.

interface ServerReady {
  type: "ready";
  port: number;
  tokens: string[];
  body: string;
}
interface Memory {
  type: "memory";
  rss: number;
  heapUsed: number;
}
interface Published {
  type: "published";
  at: number;
  /** When the write had returned (its events are on the bus by then). */
  committed: number;
}
interface Connected {
  type: "connected";
  refused: number;
}
interface Expecting {
  type: "expecting";
}
interface Arrivals {
  type: "arrivals";
  times: number[];
}
type ChildMessage = ServerReady | Memory | Published | Connected | Expecting | Arrivals;

type ServerCommand = { type: "measure" } | { type: "publish"; round: number };
type SubscriberCommand = { type: "connect"; port: number; tokens: string[]; body: string; count: number } | { type: "expect"; round: number };

/** A forked child of this file in `role`; messages are kept until asked for, so none is missed. */
function spawnRole(role: string, env: Record<string, string> = {}) {
  const child: ChildProcess = fork(SELF, [], {
    execArgv: ["--conditions=source", "--import", "tsx", "--expose-gc"],
    env: { ...process.env, ...env, SSE_FANOUT_ROLE: role },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: ChildMessage[] = [];
  let wake: (() => void) | undefined;
  let exitCode: number | null | undefined;
  child.on("message", (message: ChildMessage) => {
    inbox.push(message);
    wake?.();
  });
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      wake?.();
      resolve();
    }),
  );
  return {
    send(command: ServerCommand | SubscriberCommand): void {
      child.send(command);
    },
    async next<T extends ChildMessage>(type: T["type"], limitMs = 10 * 60_000): Promise<T> {
      const deadline = Date.now() + limitMs;
      for (;;) {
        const found = inbox.findIndex((message) => message.type === type);
        if (found >= 0) return inbox.splice(found, 1)[0] as T;
        if (exitCode !== undefined) throw new Error(`${role} exited with ${exitCode} while waiting for ${type}`);
        if (Date.now() > deadline) throw new Error(`${role}: no ${type} within ${limitMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          wake = () => {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          };
        });
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server children.

function measureMemory(): Memory {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { type: "memory", rss, heapUsed };
}

/** Strongroom on SQLite with one project and enough viewer identities for `subscribers` streams. */
async function runStrongroomServer(subscribers: number): Promise<void> {
  const { anonymous, createStrongroom, generateRootKey } = await import("@strongroom/core");
  const { createSqliteStorage } = await import("@strongroom/storage-sqlite");
  const { createHandler } = await import("@strongroom/http-node");
  const { issueAccessToken } = await import("../../packages/core/src/tenancy/auth/tokens.js");

  const dir = mkdtempSync(join(tmpdir(), "strongroom-bench-sse-"));
  const sr = await createStrongroom({ storage: await createSqliteStorage({ filename: join(dir, "strongroom.db") }), rootKey: generateRootKey() });
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Fan-out" });
  const tokens: string[] = [];
  for (let i = 0; i < Math.ceil(subscribers / STREAMS_PER_TOKEN); i++) {
    const { identity } = await sr.identities.create(admin, { name: `watcher-${i}`, organizationId: boot.organization.id });
    await sr.memberships.addIdentity(admin, { projectId: project.id, identityId: identity.id, role: "viewer" });
    // Issued directly: universal-auth logins hash with scrypt, which would only slow the set-up.
    const issued = await issueAccessToken(sr.context, { actorType: "identity", actorId: identity.id, orgId: boot.organization.id }, 3600);
    tokens.push(issued.token);
  }
  const server = createServer(createHandler(sr, { logger: () => undefined }));
  // Every subscriber connects at once; the default backlog would refuse some of them.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  const body = JSON.stringify({ projectId: project.id, register: [{ event: "secret:create", conditions: { secretPath: "/**" } }] });

  serveCommands({ type: "ready", port: (server.address() as AddressInfo).port, tokens, body }, async (round) => {
    const at = now();
    await sr.secrets.create(admin, { projectId: project.id, environment: "dev", secretPath: "/", secretName: `FANOUT_${round}`, secretValue: "v" });
    return at;
  });
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close();
    void sr.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

/** The baseline: node:http holding SSE responses and writing one frame to each, nothing else. */
async function runBareServer(): Promise<void> {
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    open.add(res);
    res.on("close", () => open.delete(res));
  });
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve));
  serveCommands({ type: "ready", port: (server.address() as AddressInfo).port, tokens: ["bare"], body: "{}" }, async (round) => {
    const at = now();
    const data = JSON.stringify({ projectType: "secret-manager", data: { eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: `FANOUT_${round}` }] } });
    const frame = `id: ${round}\nevent: secret:create\ndata: ${data}\n\n`;
    for (const res of open) res.write(frame);
    return at;
  });
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

function serveCommands(ready: ServerReady, publish: (round: number) => Promise<number>): void {
  process.on("message", (command: ServerCommand) => {
    if (command.type === "measure") process.send!(measureMemory());
    else void publish(command.round).then((at) => process.send!({ type: "published", at, committed: now() } satisfies Published));
  });
  process.send!(measureMemory());
  process.send!(ready);
}

// ---------------------------------------------------------------------------------------------
// The subscriber child: raw sockets, the least client work per event.

async function runSubscribers(): Promise<void> {
  const sockets: Socket[] = [];
  let round = 0;
  let arrivals: number[] = [];
  let arrived: Uint8Array = new Uint8Array(0);
  let pending = 0;

  const open = (port: number, request: string, index: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let head = "";
      let started = false;
      socket.setEncoding("utf8");
      socket.on("error", () => resolve(false));
      socket.on("data", (chunk: string) => {
        if (!started) {
          head += chunk;
          const end = head.indexOf("\r\n\r\n");
          if (end < 0) return;
          started = true;
          if (!head.startsWith("HTTP/1.1 200")) {
            socket.destroy();
            resolve(false);
            return;
          }
          resolve(true);
          chunk = head.slice(end + 4);
        }
        if (round > 0 && arrived[index] === 0 && chunk.includes(`id: ${round}\n`)) {
          arrived[index] = 1;
          arrivals.push(now());
          if (--pending === 0) process.send!({ type: "arrivals", times: arrivals } satisfies Arrivals);
        }
      });
      socket.write(request);
      sockets[index] = socket;
    });

  process.on("message", async (command: SubscriberCommand) => {
    if (command.type === "connect") {
      const request = (token: string) =>
        `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(command.body)}\r\n\r\n${command.body}`;
      let next = 0;
      let refused = 0;
      const worker = async () => {
        while (next < command.count) {
          const index = next++;
          const token = command.tokens[Math.floor(index / STREAMS_PER_TOKEN) % command.tokens.length];
          if (!(await open(command.port, request(token), index))) refused++;
        }
      };
      await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
      process.send!({ type: "connected", refused } satisfies Connected);
    } else {
      round = command.round;
      arrivals = [];
      arrived = new Uint8Array(sockets.length);
      pending = sockets.length;
      process.send!({ type: "expecting" } satisfies Expecting);
    }
  });
  process.once("SIGTERM", () => {
    for (const socket of sockets) socket?.destroy();
    process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------
// The coordinator.

interface FanOutResult {
  p50: number;
  p99: number;
  rssPerStream: number;
  heapPerStream: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function fanOut(kind: "strongroom" | "bare", subscribers: number, rounds: number, log: (line: string) => void): Promise<FanOutResult> {
  const server = spawnRole(kind === "bare" ? "bare-server" : "server", { SSE_FANOUT_SUBSCRIBERS: String(subscribers) });
  const clients = spawnRole("subscribers");
  try {
    const before = await server.next<Memory>("memory");
    const ready = await server.next<ServerReady>("ready");
    const started = Date.now();
    clients.send({ type: "connect", port: ready.port, tokens: ready.tokens, body: ready.body, count: subscribers });
    const connected = await clients.next<Connected>("connected");
    if (connected.refused > 0) throw new Error(`${connected.refused} of ${subscribers} subscriptions were refused`);
    log(`${kind}: ${subscribers} streams open in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    server.send({ type: "measure" });
    const after = await server.next<Memory>("memory");

    const latencies: number[] = [];
    for (let round = 1; round <= WARM_UP_ROUNDS + rounds; round++) {
      clients.send({ type: "expect", round });
      await clients.next<Expecting>("expecting");
      server.send({ type: "publish", round });
      const published = await server.next<Published>("published");
      const { times } = await clients.next<Arrivals>("arrivals", ROUND_TIMEOUT_MS);
      const roundLatencies = times.map((t) => t - published.at).sort((a, b) => a - b);
      const warmUp = round <= WARM_UP_ROUNDS;
      log(
        `${kind} ${warmUp ? "warm-up" : "measured"} round ${round}: p50 ${percentile(roundLatencies, 50).toFixed(1)} ms, ` +
          `p99 ${percentile(roundLatencies, 99).toFixed(1)} ms, last ${roundLatencies.at(-1)!.toFixed(1)} ms ` +
          `(write returned after ${(published.committed - published.at).toFixed(1)} ms)`,
      );
      if (!warmUp) latencies.push(...roundLatencies);
    }
    latencies.sort((a, b) => a - b);
    return {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      rssPerStream: (after.rss - before.rss) / subscribers,
      heapPerStream: (after.heapUsed - before.heapUsed) / subscribers,
    };
  } finally {
    await Promise.all([clients.stop(), server.stop()]);
  }
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const subscribers = options.quick ? 1_000 : 10_000;
  const rounds = options.quick ? 2 : 3;
  const bare = await fanOut("bare", subscribers, rounds, options.log);
  const ours = await fanOut("strongroom", subscribers, rounds, options.log);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  options.log(`strongroom per stream: RSS ${kb(ours.rssPerStream)}, heap ${kb(ours.heapPerStream)}; bare: RSS ${kb(bare.rssPerStream)}, heap ${kb(bare.heapPerStream)}`);
  const n = subscribers.toLocaleString("en-US");
  return [
    {
      section: "SSE fan-out p99",
      ours: `${ours.p99.toFixed(0)} ms at ${n} (p50 ${ours.p50.toFixed(0)} ms)`,
      baseline: `${bare.p99.toFixed(0)} ms bare node:http SSE`,
      ratio: `${(ours.p99 / bare.p99).toFixed(2)}x`,
      target: `< ${LATENCY_TARGET_MS} ms at 10,000`,
      met: ours.p99 < LATENCY_TARGET_MS,
    },
    {
      section: "SSE memory per subscriber",
      ours: `${kb(ours.rssPerStream)} RSS at ${n} (${kb(ours.heapPerStream)} heap)`,
      baseline: `${kb(bare.rssPerStream)} RSS bare node:http SSE`,
      ratio: `${(ours.rssPerStream / bare.rssPerStream).toFixed(2)}x`,
      target: `< ${MEMORY_TARGET_KB} KB`,
      met: ours.rssPerStream < MEMORY_TARGET_KB * 1024,
    },
  ];
}

const section: BenchSection = { name: "sse-fanout", run };
export default section;

switch (process.env.SSE_FANOUT_ROLE) {
  case "server":
    await runStrongroomServer(Number(process.env.SSE_FANOUT_SUBSCRIBERS));
    break;
  case "bare-server":
    await runBareServer();
    break;
  case "subscribers":
    await runSubscribers();
    break;
}
