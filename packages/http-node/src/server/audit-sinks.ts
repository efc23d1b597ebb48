/** The audit streams `strongroom serve` opens from its environment (README, "Audit log"). */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { createFileSink, createWebhookSink, type BufferedSink } from "@strongroom/core/audit";

export interface AuditSinkSettings {
  /** `STRONGROOM_AUDIT_FILE`: JSON lines, rotated by size, mode 0600. */
  file?: { path: string; maxBytes: number; keep: number };
  /** `STRONGROOM_AUDIT_WEBHOOK_URL` and its HMAC secret; `caFile` adds a private CA. */
  webhook?: { url: string; secret: string; caFile?: string };
  /** Entries each sink holds while it is behind; past it, it drops and counts (never blocks a request). */
  bufferEntries: number;
}

/** Reads and checks the audit sink variables; throws naming the variable when a value is unusable. */
export function readAuditSinkSettings(env: Readonly<Record<string, string | undefined>>): AuditSinkSettings {
  const path = env.STRONGROOM_AUDIT_FILE?.trim();
  const url = env.STRONGROOM_AUDIT_WEBHOOK_URL?.trim();
  const secret = env.STRONGROOM_AUDIT_WEBHOOK_SECRET?.trim();
  if (url) {
    if (!/^https:\/\//i.test(url)) throw new Error("STRONGROOM_AUDIT_WEBHOOK_URL must be an https:// URL");
    if (!secret || secret.length < 16) throw new Error("STRONGROOM_AUDIT_WEBHOOK_SECRET must be set (at least 16 characters) when STRONGROOM_AUDIT_WEBHOOK_URL is");
  }
  const caFile = env.STRONGROOM_AUDIT_WEBHOOK_CA?.trim() || env.STRONGROOM_WEBHOOK_CA?.trim() || undefined;
  return {
    ...(path
      ? {
          file: {
            path: resolve(path),
            maxBytes: positive(env.STRONGROOM_AUDIT_FILE_MAX_BYTES, "STRONGROOM_AUDIT_FILE_MAX_BYTES", 100 * 1024 * 1024),
            keep: positive(env.STRONGROOM_AUDIT_FILE_KEEP, "STRONGROOM_AUDIT_FILE_KEEP", 5),
          },
        }
      : {}),
    ...(url && secret ? { webhook: { url, secret, ...(caFile ? { caFile } : {}) } } : {}),
    bufferEntries: positive(env.STRONGROOM_AUDIT_SINK_BUFFER, "STRONGROOM_AUDIT_SINK_BUFFER", 10_000),
  };
}

/**
 * Opens the configured sinks (the file at once, so an unwritable path stops start-up). Delivery
 * failures go to `log` by message only: entries never reach the server log.
 */
export async function openAuditSinks(settings: AuditSinkSettings, log: (message: string) => void): Promise<BufferedSink[]> {
  const onError = (sink: string, error: unknown) => log(`audit sink ${sink}: ${error instanceof Error ? error.message : String(error)}`);
  const common = { capacity: settings.bufferEntries, onError };
  const sinks: BufferedSink[] = [];
  if (settings.file) sinks.push(await createFileSink({ ...settings.file, ...common }));
  if (settings.webhook) {
    const { caFile, ...webhook } = settings.webhook;
    sinks.push(createWebhookSink({ ...webhook, ...common, ...(caFile ? { ca: await readFile(caFile, "utf8") } : {}) }));
  }
  return sinks;
}

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return parsed;
}
