import { mkdir, readFile } from "node:fs/promises";
import { createStrongroom, type Strongroom } from "@strongroom/core";
import type { SinkLag } from "@strongroom/core/audit";
import { openAuditSinks } from "./audit-sinks.js";
import { openBackend } from "./backend.js";
import { listen, type RunningServer } from "./listen.js";
import { entryWriter, jsonLinesLogger, type Logger } from "../logger.js";
import { checkDataDir } from "./startup-checks.js";
import { loadRootKey } from "./root-key.js";
import { readServerSettings, type ServerEnv } from "./settings.js";

export interface StrongroomServer extends RunningServer {
  readonly strongroom: Strongroom;
  /** How far each configured audit stream (file, webhook) is behind, and what it dropped: for metrics. */
  auditSinkLag(): SinkLag[];
}

export interface StrongroomServerOptions {
  logger?: Logger;
  shutdownTimeoutMs?: number;
}

/**
 * The `strongroom` server as configured by environment variables (DESIGN.md §10), listening.
 * Everything it opened is closed again when start-up fails part way.
 */
export async function createStrongroomServer(env: ServerEnv = process.env, options: StrongroomServerOptions = {}): Promise<StrongroomServer> {
  const settings = readServerSettings(env);
  await mkdir(settings.dataDir, { recursive: true });
  const log = entryWriter(options.logger ?? jsonLinesLogger);
  await checkDataDir(settings, (msg) => log({ level: "warn", time: new Date().toISOString(), msg }));
  const rootKey = await loadRootKey(settings.rootKey, settings.dataDir);
  const { storage, bus } = await openBackend(settings);
  // The database drivers behind dynamic secrets load with the server, not with the library.
  const { dynamicSecretProviders } = await import("@strongroom/dynamic-secrets");

  let strongroom: Strongroom;
  try {
    strongroom = await createStrongroom({
      storage,
      bus,
      rootKey,
      dynamicSecretProviders,
      config: {
        allowPrivateTargets: settings.allowPrivateTargets,
        maxEventStreams: settings.maxEventStreams,
        allowPrivateDatabases: settings.allowPrivateDatabases,
        ...(settings.smtpUrl ? { smtpUrl: settings.smtpUrl } : {}),
        ...(settings.smtpFrom ? { smtpFrom: settings.smtpFrom } : {}),
        ...(settings.webhookCaFile ? { webhookCa: await readFile(settings.webhookCaFile, "utf8") } : {}),
      },
    });
  } catch (thrown) {
    await bus?.close();
    await storage.close();
    throw thrown;
  }

  let sinks: Awaited<ReturnType<typeof openAuditSinks>>;
  try {
    // Streams are attached before the first request, so they see every entry this node records.
    sinks = await openAuditSinks(settings.auditSinks, (msg) => log({ level: "warn", time: new Date().toISOString(), msg }));
    for (const sink of sinks) strongroom.audit.addSink(sink);
  } catch (thrown) {
    await strongroom.close();
    throw thrown;
  }

  try {
    const running = await listen(strongroom, {
      port: settings.port,
      host: settings.host,
      rateLimit: settings.rateLimit ?? false,
      authRateLimit: settings.authRateLimit,
      trustedProxies: settings.trustedProxies,
      logger: options.logger,
      drainTimeoutMs: options.shutdownTimeoutMs ?? settings.drainTimeoutMs,
    });
    strongroom.scheduler.start(settings.schedulerTickMs);
    return { ...running, strongroom, auditSinkLag: () => sinks.map((sink) => sink.lag()) };
  } catch (thrown) {
    await strongroom.close();
    throw thrown;
  }
}
