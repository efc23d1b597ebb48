/**
 * Every environment variable the server reads, with the `strongroom serve` flag that sets it.
 * One list, so the CLI offers a flag for each and a test holds it to what `settings.ts` reads:
 * a variable added there without a row here fails `variables.test.ts`.
 */
export interface ServerVariable {
  /** The environment variable, e.g. `PORT`. */
  readonly name: string;
  /** The long flag without dashes, e.g. `port` for `--port <value>`. */
  readonly flag: string;
  /** What the value is, as `--help` shows it. */
  readonly value: string;
  readonly description: string;
}

export const SERVER_VARIABLES: readonly ServerVariable[] = [
  { name: "PORT", flag: "port", value: "port", description: "port to listen on (default 8080)" },
  { name: "HOST", flag: "host", value: "address", description: "address to listen on (default 0.0.0.0)" },
  { name: "DATA_DIR", flag: "data-dir", value: "dir", description: "SQLite database and generated root key (default ./data)" },
  { name: "DATABASE_URL", flag: "database-url", value: "url", description: "postgres:// URL: PostgreSQL storage and event bus instead of SQLite" },
  { name: "STRONGROOM_ROOT_KEY", flag: "root-key", value: "base64", description: "32-byte root key (default: DATA_DIR/root.key, created on first start); a flag shows in `ps`, prefer the variable" },
  { name: "STRONGROOM_ALLOW_PRIVATE_TARGETS", flag: "allow-private-targets", value: "true|false", description: "let discovery scans reach private and loopback addresses" },
  { name: "STRONGROOM_ALLOW_PRIVATE_DATABASES", flag: "allow-private-databases", value: "true|false", description: "let dynamic secrets connect to databases at private and loopback addresses" },
  { name: "SMTP_URL", flag: "smtp-url", value: "url", description: "smtp://user:pass@host:port for e-mail alert channels" },
  { name: "SMTP_FROM", flag: "smtp-from", value: "address", description: "sender of alert e-mails (default strongroom@localhost)" },
  { name: "STRONGROOM_WEBHOOK_CA", flag: "webhook-ca", value: "file", description: "PEM file of extra CAs trusted for alert webhooks" },
  { name: "STRONGROOM_RATE_LIMIT", flag: "rate-limit", value: "rps:burst", description: "per client IP and identity; 429 beyond (default off)" },
  { name: "STRONGROOM_AUTH_RATE_LIMIT", flag: "auth-rate-limit", value: "perMinute:burst|off", description: "anonymous auth routes (logins) per client address (default 20:10)" },
  { name: "STRONGROOM_TRUSTED_PROXIES", flag: "trusted-proxies", value: "cidrs", description: "comma-separated proxies whose X-Forwarded-For names the client (default none)" },
  { name: "STRONGROOM_SCHEDULER_TICK_MS", flag: "scheduler-tick-ms", value: "ms", description: "how often the node looks for due scheduled jobs (default 30000)" },
  { name: "STRONGROOM_MAX_EVENT_STREAMS", flag: "max-event-streams", value: "count", description: "event streams open at once on the node; 503 with Retry-After beyond (default 20000)" },
  { name: "STRONGROOM_PLAINTEXT_CACHE_SECONDS", flag: "plaintext-cache-seconds", value: "seconds", description: "how long a decrypted value may stay in memory for repeated reads, 0 to 300 (list answers: at most 60); 0 turns both caches off (default 300)" },
  { name: "STRONGROOM_AUDIT_FILE", flag: "audit-file", value: "file", description: "stream the audit log to this JSON-lines file (mode 0600, rotated by size)" },
  { name: "STRONGROOM_AUDIT_FILE_MAX_BYTES", flag: "audit-file-max-bytes", value: "bytes", description: "rotate the audit file before it grows past this (default 104857600)" },
  { name: "STRONGROOM_AUDIT_FILE_KEEP", flag: "audit-file-keep", value: "count", description: "rotated audit files kept beside it, .1 newest (default 5)" },
  { name: "STRONGROOM_AUDIT_WEBHOOK_URL", flag: "audit-webhook-url", value: "url", description: "stream the audit log to this https:// webhook (signed, retried)" },
  { name: "STRONGROOM_AUDIT_WEBHOOK_SECRET", flag: "audit-webhook-secret", value: "secret", description: "HMAC-SHA256 key of the audit webhook's x-strongroom-signature; a flag shows in `ps`, prefer the variable" },
  { name: "STRONGROOM_AUDIT_WEBHOOK_CA", flag: "audit-webhook-ca", value: "file", description: "PEM file of extra CAs trusted for the audit webhook (default STRONGROOM_WEBHOOK_CA's)" },
  { name: "STRONGROOM_AUDIT_SINK_BUFFER", flag: "audit-sink-buffer", value: "entries", description: "entries each audit sink holds while behind; beyond, it drops and counts (default 10000)" },
  { name: "STRONGROOM_DRAIN_TIMEOUT_MS", flag: "drain-timeout-ms", value: "ms", description: "longest a drain on SIGTERM lasts before requests still running are cut off (default 10000)" },
  { name: "METRICS_PORT", flag: "metrics-port", value: "port", description: "serve Prometheus metrics at GET /metrics on this port (default off)" },
  { name: "METRICS_HOST", flag: "metrics-host", value: "address", description: "address the metrics port listens on (default 127.0.0.1)" },
  { name: "TLS_CERT_FILE", flag: "tls-cert-file", value: "file", description: "PEM certificate (chain) to serve HTTPS with; read again on SIGHUP" },
  { name: "TLS_KEY_FILE", flag: "tls-key-file", value: "file", description: "PEM private key of TLS_CERT_FILE" },
];

/** The environment a `strongroom serve` invocation means: the process's, with each given flag's variable set. */
export function environmentWithFlags(env: NodeJS.ProcessEnv, flags: Record<string, unknown>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...env };
  for (const variable of SERVER_VARIABLES) {
    const value = flags[camelCase(variable.flag)];
    if (value !== undefined) merged[variable.name] = String(value);
  }
  return merged;
}

/** commander's option key for a flag: `data-dir` → `dataDir`. */
const camelCase = (flag: string): string => flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
