import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Strongroom } from "@strongroom/core";

/** One answered request, as the handler reports it (`HandlerOptions.onResponse`). */
export interface ResponseReport {
  readonly method: string;
  /** The route template, `null` when no route matched. */
  readonly route: string | null;
  readonly status: number;
  readonly durationMs: number;
}

/** What an audit sink reports about how far it is behind: entries waiting, age of the oldest. */
export interface AuditSinkLag {
  readonly entries?: number;
  readonly seconds?: number;
}

/** What a storage wrapped by `instrumentStorage` reports. */
export interface StorageObserver {
  /** One table call (`get`, `find`, `insert`, …) ended after `seconds`; `ok` false when it threw. */
  query(operation: string, seconds: number, ok: boolean): void;
  /** One whole transaction (retries included) ended. */
  transaction(seconds: number, ok: boolean): void;
  /** A table call or transaction started (+1) or ended (-1). */
  inFlight(kind: "query" | "transaction", delta: 1 | -1): void;
}

/** Connections of a pool: open, idle among them, and callers waiting for one. */
export interface PoolLoad {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

/** Where the gauges read from: whatever of it is given. */
export interface MetricSources {
  /** Requests in flight and open event streams (the server's handler). */
  handler?: { readonly inFlight: number; readonly openStreams: number; readonly streamMemoryBytes: number };
}

/** Metrics of one server, in a registry of its own (several servers in one process do not mix). */
export interface StrongroomMetrics {
  readonly registry: Registry;
  /** For `HandlerOptions.onResponse`. */
  readonly onResponse: (report: ResponseReport) => void;
  /** For `instrumentStorage`. */
  readonly storage: StorageObserver;
  /** Reads the handler's gauges from now on. */
  watchHandler(handler: NonNullable<MetricSources["handler"]>): void;
  /** Reads the instance's cache counters and hears its scheduled job runs from now on. */
  watchInstance(strongroom: Pick<Strongroom, "context" | "scheduler">): void;
  /** Reads a connection pool's load at each scrape (PostgreSQL). */
  watchPool(read: () => PoolLoad): void;
  /**
   * Registers an audit sink's lag, read at each scrape as `strongroom_audit_sink_lag_entries` and
   * `strongroom_audit_sink_lag_seconds` labelled with the sink's name. Returns an unregister function.
   */
  registerAuditSinkLag(sink: string, read: () => AuditSinkLag): () => void;
  /** The text exposition (Prometheus format 0.0.4). */
  text(): Promise<string>;
  readonly contentType: string;
}

/** Seconds; covers a cached read (sub-millisecond) up to a drain-length request. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const JOB_BUCKETS = [0.01, 0.1, 0.5, 1, 5, 15, 60, 300];

/** Methods kept as label values; anything else is `other`, so a client cannot grow the label set. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function createMetrics(): StrongroomMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  let handler: MetricSources["handler"];
  let instance: Pick<Strongroom, "context" | "scheduler"> | undefined;
  let pool: (() => PoolLoad) | undefined;
  const auditSinks = new Map<string, () => AuditSinkLag>();

  const requests = new Counter({
    name: "strongroom_http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const requestSeconds = new Histogram({
    name: "strongroom_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end (event streams: their whole life), by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  new Gauge({
    name: "strongroom_http_requests_in_flight",
    help: "Requests not yet answered in full (open event streams included)",
    registers,
    collect() {
      this.set(handler?.inFlight ?? 0);
    },
  });
  new Gauge({
    name: "strongroom_event_streams_open",
    help: "Server-Sent Event streams open on this node",
    registers,
    collect() {
      this.set(handler?.openStreams ?? 0);
    },
  });
  new Gauge({
    name: "strongroom_event_streams_memory_bytes",
    help: "Memory the open event streams are estimated to hold (unsent output plus a fixed amount each)",
    registers,
    collect() {
      this.set(handler?.streamMemoryBytes ?? 0);
    },
  });

  const querySeconds = new Histogram({
    name: "strongroom_db_query_duration_seconds",
    help: "Storage calls (one statement each) by table operation and outcome",
    labelNames: ["operation", "outcome"] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const transactionSeconds = new Histogram({
    name: "strongroom_db_transaction_duration_seconds",
    help: "Storage transactions, from asking for one (waiting for a slot included) to commit or rollback",
    labelNames: ["outcome"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const inFlight = { query: 0, transaction: 0 };
  new Gauge({
    name: "strongroom_db_in_flight",
    help: "Storage calls and transactions under way",
    labelNames: ["kind"] as const,
    registers,
    collect() {
      this.set({ kind: "query" }, inFlight.query);
      this.set({ kind: "transaction" }, inFlight.transaction);
    },
  });
  new Gauge({
    name: "strongroom_db_pool_connections",
    help: "Database pool connections by state (PostgreSQL): total open, idle, and callers waiting for one",
    labelNames: ["state"] as const,
    registers,
    collect() {
      if (!pool) return;
      const load = pool();
      this.set({ state: "total" }, load.total);
      this.set({ state: "idle" }, load.idle);
      this.set({ state: "waiting" }, load.waiting);
    },
  });

  // Cache counters live on the caches (core counts them); each scrape copies them over.
  const cacheStats = () => instance?.context.caches.stats() ?? {};
  new Counter({
    name: "strongroom_cache_lookups_total",
    help: "Lookups in the instance's caches, by cache and result (hit, miss)",
    labelNames: ["cache", "result"] as const,
    registers,
    collect() {
      this.reset();
      for (const [cache, stats] of Object.entries(cacheStats())) {
        this.inc({ cache, result: "hit" }, stats.hits);
        this.inc({ cache, result: "miss" }, stats.misses);
      }
    },
  });
  new Gauge({
    name: "strongroom_cache_hit_ratio",
    help: "Hits over lookups since start, by cache (absent before a cache's first lookup)",
    labelNames: ["cache"] as const,
    registers,
    collect() {
      this.reset();
      for (const [cache, stats] of Object.entries(cacheStats())) {
        const lookups = stats.hits + stats.misses;
        if (lookups > 0) this.set({ cache }, stats.hits / lookups);
      }
    },
  });
  new Gauge({
    name: "strongroom_cache_entries",
    help: "Entries held, by cache",
    labelNames: ["cache"] as const,
    registers,
    collect() {
      this.reset();
      for (const [cache, stats] of Object.entries(cacheStats())) this.set({ cache }, stats.size);
    },
  });

  const jobRuns = new Counter({
    name: "strongroom_job_runs_total",
    help: "Scheduled job runs this node made, by job and outcome (succeeded, failed)",
    labelNames: ["job", "outcome"] as const,
    registers,
  });
  const jobSeconds = new Histogram({
    name: "strongroom_job_duration_seconds",
    help: "Scheduled job runs this node made, by job",
    labelNames: ["job"] as const,
    buckets: JOB_BUCKETS,
    registers,
  });

  const readSinks = () => [...auditSinks].map(([sink, read]) => ({ sink, lag: safely(read) }));
  new Gauge({
    name: "strongroom_audit_sink_lag_entries",
    help: "Audit entries a sink has yet to deliver, by sink",
    labelNames: ["sink"] as const,
    registers,
    collect() {
      this.reset();
      for (const { sink, lag } of readSinks()) if (lag?.entries !== undefined) this.set({ sink }, lag.entries);
    },
  });
  new Gauge({
    name: "strongroom_audit_sink_lag_seconds",
    help: "Age of the oldest audit entry a sink has yet to deliver, by sink",
    labelNames: ["sink"] as const,
    registers,
    collect() {
      this.reset();
      for (const { sink, lag } of readSinks()) if (lag?.seconds !== undefined) this.set({ sink }, lag.seconds);
    },
  });

  return {
    registry,
    onResponse({ method, route, status, durationMs }) {
      const labels = { method: METHODS.has(method) ? method : "other", route: route ?? "unmatched", status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, durationMs / 1000);
    },
    storage: {
      query: (operation, seconds, ok) => querySeconds.observe({ operation, outcome: ok ? "ok" : "error" }, seconds),
      transaction: (seconds, ok) => transactionSeconds.observe({ outcome: ok ? "ok" : "error" }, seconds),
      inFlight: (kind, delta) => {
        inFlight[kind] += delta;
      },
    },
    watchHandler(source) {
      handler = source;
    },
    watchInstance(strongroom) {
      instance = strongroom;
      strongroom.scheduler.onRun(({ job, outcome, durationMs }) => {
        jobRuns.inc({ job, outcome });
        jobSeconds.observe({ job }, durationMs / 1000);
      });
    },
    watchPool(read) {
      pool = read;
    },
    registerAuditSinkLag(sink, read) {
      auditSinks.set(sink, read);
      return () => {
        if (auditSinks.get(sink) === read) auditSinks.delete(sink);
      };
    },
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** A reader that throws reports nothing for this scrape rather than failing the whole page. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
