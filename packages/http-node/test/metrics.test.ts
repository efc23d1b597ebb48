import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { createStrongroomServer, silentLogger, type StrongroomServer } from "@strongroom/http-node";
import { openEventStream } from "./api/events-client.js";
import { call } from "./helpers/spawn-server.js";

/**
 * A scrape, parsed by a Prometheus text-format parser (which also rejects a malformed page).
 * `value(name, labels)` sums the matching samples of a counter or gauge; `count(name, labels)` the
 * observations of a histogram's matching series, read from their `_count` samples (the parser
 * merges a histogram's labelled series into one).
 */
async function scrape(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text);
  const family = (name: string) => families.find((f) => f.name === name);
  const matches = (labels: Record<string, string>, have: Record<string, string> | undefined) =>
    Object.entries(labels).every(([key, value]) => have?.[key] === value);
  const matching = (name: string, labels: Record<string, string>) => (family(name)?.metrics ?? []).filter((sample) => matches(labels, sample.labels));
  const counts = text
    .split("\n")
    .map((line) => /^(\w+)_count\{(.*)\} (\S+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, name, labels, value]) => ({ name, value: Number(value), labels: Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]])) }));
  return {
    family,
    value: (name: string, labels: Record<string, string> = {}) => matching(name, labels).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0),
    count: (name: string, labels: Record<string, string> = {}) => {
      expect(family(name)?.type).toBe("HISTOGRAM");
      return counts.filter((c) => c.name === name && matches(labels, c.labels)).reduce((sum, c) => sum + c.value, 0);
    },
    labels: (name: string) => matching(name, {}).map((sample) => sample.labels ?? {}),
  };
}

describe("GET /metrics (METRICS_PORT)", () => {
  let dir: string;
  let running: StrongroomServer;
  let metricsUrl: string;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "strongroom-metrics-"));
    running = await createStrongroomServer(
      { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, STRONGROOM_ROOT_KEY: generateRootKey(), METRICS_PORT: "0" },
      { logger: silentLogger },
    );
    metricsUrl = running.metrics!.url;
    const setup = await call(running.url, "POST", "/api/v1/admin/bootstrap", { body: { email: "ops@example.com", password: "a long password", organization: "Acme" } });
    token = setup.body.identity.credentials.token;
    projectId = (await call(running.url, "POST", "/api/v1/projects", { token, body: { projectName: "Metered" } })).body.project.id;
  });

  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const listSecrets = () => call(running.url, "GET", `/api/v4/secrets?projectId=${projectId}&environment=dev&secretPath=/`, { token });

  it("is served on its own loopback port and not on the API's", async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(running.url).port);
    expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
    expect((await fetch(new URL("/other", metricsUrl))).status).toBe(404);
  });

  it("counts requests by route template and status, with latency histograms", async () => {
    const route = "/api/v4/secrets";
    const before = await scrape(metricsUrl);
    const okBefore = before.value("strongroom_http_requests_total", { method: "GET", route, status: "200" });
    expect((await listSecrets()).status).toBe(200);
    expect((await listSecrets()).status).toBe(200);
    expect((await call(running.url, "GET", `/api/v4/secrets?projectId=${projectId}&environment=dev&secretPath=/`)).status).toBe(401);
    expect((await call(running.url, "GET", "/api/v1/no/such/route")).status).toBe(404);

    const after = await scrape(metricsUrl);
    expect(after.value("strongroom_http_requests_total", { method: "GET", route, status: "200" })).toBe(okBefore + 2);
    expect(after.value("strongroom_http_requests_total", { method: "GET", route, status: "401" })).toBeGreaterThanOrEqual(1);
    // Paths that match no route share one label value: a client cannot grow the label set.
    expect(after.value("strongroom_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(after.labels("strongroom_http_requests_total").map((l) => l.route)).not.toContain("/api/v1/no/such/route");
    expect(after.count("strongroom_http_request_duration_seconds", { method: "GET", route, status: "200" })).toBe(okBefore + 2);
  });

  it("times storage calls and transactions, and counts cache lookups", async () => {
    const before = await scrape(metricsUrl);
    const reads = before.count("strongroom_db_query_duration_seconds", { outcome: "ok" });
    const transactions = before.count("strongroom_db_transaction_duration_seconds", { outcome: "ok" });
    expect(
      (await call(running.url, "POST", "/api/v4/secrets/METERED", { token, body: { projectId, environment: "dev", secretPath: "/", secretValue: "v" } })).status,
    ).toBe(200);
    await listSecrets();
    await listSecrets();

    const after = await scrape(metricsUrl);
    expect(after.count("strongroom_db_query_duration_seconds", { outcome: "ok" })).toBeGreaterThan(reads);
    expect(after.count("strongroom_db_query_duration_seconds", { operation: "insert" })).toBeGreaterThan(0);
    expect(after.count("strongroom_db_transaction_duration_seconds", { outcome: "ok" })).toBeGreaterThan(transactions);
    expect(after.value("strongroom_db_in_flight", { kind: "query" })).toBe(0);
    // The second list reads access from the caches the first one filled.
    expect(after.value("strongroom_cache_lookups_total", { result: "hit" })).toBeGreaterThan(0);
    const ratios = after.family("strongroom_cache_hit_ratio")!.metrics;
    expect(ratios.length).toBeGreaterThan(0);
    for (const ratio of ratios) expect(Number(ratio.value)).toBeGreaterThanOrEqual(0);
    for (const ratio of ratios) expect(Number(ratio.value)).toBeLessThanOrEqual(1);
  });

  it("counts scheduled job runs by job and outcome", async () => {
    const ran = await running.strongroom.scheduler.runDue();
    expect(ran.length).toBeGreaterThan(0);
    const after = await scrape(metricsUrl);
    for (const job of ran) {
      expect(after.value("strongroom_job_runs_total", { job, outcome: "succeeded" })).toBeGreaterThanOrEqual(1);
      expect(after.count("strongroom_job_duration_seconds", { job })).toBeGreaterThanOrEqual(1);
    }
  });

  it("shows open event streams", async () => {
    const stream = await openEventStream(running.url, token, { projectId, register: [{ event: "secret:create", conditions: { secretPath: "/**" } }] });
    expect(stream.status).toBe(200);
    expect((await scrape(metricsUrl)).value("strongroom_event_streams_open")).toBe(1);
    stream.close();
    await stream.ended;
    await expect.poll(async () => (await scrape(metricsUrl)).value("strongroom_event_streams_open")).toBe(0);
  });

  it("reads the audit sink lag others register, until they unregister", async () => {
    let waiting = 3;
    const unregister = running.metrics!.registerAuditSinkLag("syslog", () => ({ entries: waiting, seconds: 1.5 }));
    let page = await scrape(metricsUrl);
    expect(page.value("strongroom_audit_sink_lag_entries", { sink: "syslog" })).toBe(3);
    expect(page.value("strongroom_audit_sink_lag_seconds", { sink: "syslog" })).toBe(1.5);
    waiting = 0;
    expect((await scrape(metricsUrl)).value("strongroom_audit_sink_lag_entries", { sink: "syslog" })).toBe(0);
    unregister();
    page = await scrape(metricsUrl);
    expect(page.labels("strongroom_audit_sink_lag_entries")).toEqual([]);
  });

  it("includes the process's own metrics (event loop, memory)", async () => {
    const page = await scrape(metricsUrl);
    expect(page.family("nodejs_eventloop_lag_seconds")).toBeDefined();
    expect(page.family("process_resident_memory_bytes")).toBeDefined();
  });
});

describe("without METRICS_PORT", () => {
  it("serves no metrics at all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-metrics-off-"));
    const running = await createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir }, { logger: silentLogger });
    try {
      expect(running.metrics).toBeUndefined();
      expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
