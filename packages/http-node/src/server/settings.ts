import { resolve } from "node:path";
import { TrustedProxies } from "../client-address.js";
import { readAuditSinkSettings, type AuditSinkSettings } from "./audit-sinks.js";
import { parseAuthRateLimit, parseRateLimit, type RateLimitOptions } from "../rate-limit.js";

/** The environment variables the server reads (DESIGN.md §10). */
export interface ServerEnv {
  PORT?: string;
  HOST?: string;
  DATA_DIR?: string;
  DATABASE_URL?: string;
  STRONGROOM_ROOT_KEY?: string;
  STRONGROOM_ALLOW_PRIVATE_TARGETS?: string;
  STRONGROOM_ALLOW_PRIVATE_DATABASES?: string;
  SMTP_URL?: string;
  SMTP_FROM?: string;
  STRONGROOM_WEBHOOK_CA?: string;
  STRONGROOM_RATE_LIMIT?: string;
  STRONGROOM_AUTH_RATE_LIMIT?: string;
  STRONGROOM_TRUSTED_PROXIES?: string;
  STRONGROOM_SCHEDULER_TICK_MS?: string;
  STRONGROOM_DRAIN_TIMEOUT_MS?: string;
  STRONGROOM_MAX_EVENT_STREAMS?: string;
  STRONGROOM_PLAINTEXT_CACHE_SECONDS?: string;
  METRICS_PORT?: string;
  METRICS_HOST?: string;
  TLS_CERT_FILE?: string;
  TLS_KEY_FILE?: string;
  [name: string]: string | undefined;
}

export interface ServerSettings {
  port: number;
  host: string;
  dataDir: string;
  /** Set when the deployment runs on PostgreSQL; SQLite in `dataDir` otherwise. */
  postgresUrl?: string;
  rootKey?: string;
  allowPrivateTargets: boolean;
  /** Dynamic secrets may connect to databases at private and loopback addresses. */
  allowPrivateDatabases: boolean;
  smtpUrl?: string;
  /** Sender of alert e-mails. */
  smtpFrom?: string;
  /** Path of a PEM file of extra CAs trusted for alert webhooks. */
  webhookCaFile?: string;
  rateLimit?: RateLimitOptions;
  /** Anonymous auth routes per client address; on by default (20 per minute, burst 10). */
  authRateLimit: RateLimitOptions | false;
  /** Proxies whose X-Forwarded-For names the client (DESIGN.md §11); default none. */
  trustedProxies: TrustedProxies;
  /** How often the node looks for due scheduled jobs (each period runs on one node only). */
  schedulerTickMs: number;
  /** Longest a drain (SIGTERM) lasts before requests still running are cut off. */
  drainTimeoutMs: number;
  /** Event streams open at once on the node; past it, 503 with Retry-After. */
  maxEventStreams: number;
  /** How long decrypted values and list answers may stay in memory for later reads; 0 turns both caches off. */
  plaintextCacheSeconds: number;
  /** Where the audit log is streamed besides the database (`STRONGROOM_AUDIT_*`). */
  auditSinks: AuditSinkSettings;
  /** Where `GET /metrics` is served; unset: no metrics at all (nothing is measured). */
  metrics?: { port: number; host: string };
  /** Serve HTTPS with this certificate (chain) and key, both PEM files, read again on SIGHUP. */
  tls?: TlsFiles;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** Reads and checks the environment; throws with the variable's name when a value is unusable. */
export function readServerSettings(env: ServerEnv): ServerSettings {
  const port = portNumber(env.PORT, "PORT") ?? 8080;
  const metricsPort = portNumber(env.METRICS_PORT, "METRICS_PORT");
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new Error("DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for SQLite in DATA_DIR)");
  }
  return {
    port,
    host: env.HOST || "0.0.0.0",
    dataDir: resolve(env.DATA_DIR || "./data"),
    postgresUrl: databaseUrl || undefined,
    rootKey: env.STRONGROOM_ROOT_KEY?.trim() || undefined,
    allowPrivateTargets: env.STRONGROOM_ALLOW_PRIVATE_TARGETS?.trim().toLowerCase() === "true",
    allowPrivateDatabases: env.STRONGROOM_ALLOW_PRIVATE_DATABASES?.trim().toLowerCase() === "true",
    smtpUrl: env.SMTP_URL?.trim() || undefined,
    smtpFrom: env.SMTP_FROM?.trim() || undefined,
    webhookCaFile: env.STRONGROOM_WEBHOOK_CA?.trim() || undefined,
    rateLimit: env.STRONGROOM_RATE_LIMIT?.trim() ? parseRateLimit(env.STRONGROOM_RATE_LIMIT) : undefined,
    authRateLimit: parseAuthRateLimit(env.STRONGROOM_AUTH_RATE_LIMIT),
    trustedProxies: TrustedProxies.parse(env.STRONGROOM_TRUSTED_PROXIES),
    schedulerTickMs: positiveInteger(env.STRONGROOM_SCHEDULER_TICK_MS, "STRONGROOM_SCHEDULER_TICK_MS", 30_000),
    drainTimeoutMs: positiveInteger(env.STRONGROOM_DRAIN_TIMEOUT_MS, "STRONGROOM_DRAIN_TIMEOUT_MS", 10_000),
    maxEventStreams: positiveInteger(env.STRONGROOM_MAX_EVENT_STREAMS, "STRONGROOM_MAX_EVENT_STREAMS", 20_000),
    plaintextCacheSeconds: secondsUpTo(env.STRONGROOM_PLAINTEXT_CACHE_SECONDS, "STRONGROOM_PLAINTEXT_CACHE_SECONDS", 300),
    ...(metricsPort === undefined ? {} : { metrics: { port: metricsPort, host: env.METRICS_HOST?.trim() || "127.0.0.1" } }),
    ...tlsFiles(env),
    auditSinks: readAuditSinkSettings(env),
  };
}

function portNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return port;
}

/** Both files or neither: a certificate without its key (or the reverse) is a mistake, not plain HTTP. */
function tlsFiles(env: ServerEnv): { tls?: TlsFiles } {
  const certFile = env.TLS_CERT_FILE?.trim();
  const keyFile = env.TLS_KEY_FILE?.trim();
  if (!certFile && !keyFile) return {};
  if (!certFile || !keyFile) throw new Error("TLS_CERT_FILE and TLS_KEY_FILE go together: set both to serve HTTPS, or neither for plain HTTP");
  return { tls: { certFile: resolve(certFile), keyFile: resolve(keyFile) } };
}

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return parsed;
}

function secondsUpTo(value: string | undefined, name: string, most: number): number {
  if (value === undefined || value.trim() === "") return most;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > most) throw new Error(`${name} must be a whole number of seconds from 0 to ${most}, got "${value}"`);
  return parsed;
}

/**
 * Whether `host` only accepts connections from this machine (127.0.0.0/8, ::1, localhost).
 * Wildcards (0.0.0.0, ::) and every other address reach the network.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return bare === "localhost" || bare === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}
