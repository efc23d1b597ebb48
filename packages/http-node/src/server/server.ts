import { chmod, mkdir, readFile } from "node:fs/promises";
import { createStrongroom, type Strongroom } from "@strongroom/core";
import type { SinkLag } from "@strongroom/core/audit";
import { openAuditSinks } from "./audit-sinks.js";
import { openBackend } from "./backend.js";
import { listen, type RunningServer, type TlsMaterial } from "./listen.js";
import { entryWriter, jsonLinesLogger, type Logger } from "../logger.js";
import type { MetricsServer, StrongroomMetrics } from "../metrics/index.js";
import { checkDataDir } from "./startup-checks.js";
import { loadRootKey } from "./root-key.js";
import { isLoopbackHost, readServerSettings, type ServerEnv, type TlsFiles } from "./settings.js";

export interface StrongroomServer extends RunningServer {
  readonly strongroom: Strongroom;
  /** Set when METRICS_PORT is: the registry (register audit sink lag here) and where it is served. */
  readonly metrics?: StrongroomMetrics & { readonly url: string };
  /**
   * Reads TLS_CERT_FILE and TLS_KEY_FILE again and serves new connections with them (SIGHUP).
   * Throws, keeping the current certificate, when they do not load; false when TLS is off.
   */
  reloadTls(): Promise<boolean>;
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
  const tls = settings.tls;
  // Read (and checked by the listener) before anything opens: a bad file fails the start cleanly.
  const tlsMaterial = tls ? await readTls(tls) : undefined;
  // The data directory holds the root key and the database: its owner's only (issue 15, principle 12).
  await mkdir(settings.dataDir, { recursive: true, mode: 0o700 });
  await chmod(settings.dataDir, 0o700);
  const log = entryWriter(options.logger ?? jsonLinesLogger);
  const warn = (msg: string) => log({ level: "warn", time: new Date().toISOString(), msg });
  await checkDataDir(settings, warn);
  const rootKey = await loadRootKey(settings.rootKey, settings.dataDir);
  // Nothing is measured unless metrics are on: no wrapper, no registry, not even its code loaded.
  const metering = settings.metrics ? await import("../metrics/index.js") : undefined;
  const metrics = metering?.createMetrics();
  const backend = await openBackend(settings, metrics ? { watchPool: (read) => metrics.watchPool(read) } : {});
  const { bus } = backend;
  const storage = metering && metrics ? metering.instrumentStorage(backend.storage, metrics.storage) : backend.storage;
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
        plaintextCacheSeconds: settings.plaintextCacheSeconds,
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

  let running: RunningServer | undefined;
  let metricsServer: MetricsServer | undefined;

  let sinks: Awaited<ReturnType<typeof openAuditSinks>>;
  try {
    // Streams are attached before the first request, so they see every entry this node records.
    sinks = await openAuditSinks(settings.auditSinks, warn);
    for (const sink of sinks) strongroom.audit.addSink(sink);
  } catch (thrown) {
    await strongroom.close();
    throw thrown;
  }

  try {
    running = await listen(strongroom, {
      port: settings.port,
      host: settings.host,
      rateLimit: settings.rateLimit ?? false,
      authRateLimit: settings.authRateLimit,
      trustedProxies: settings.trustedProxies,
      logger: options.logger,
      drainTimeoutMs: options.shutdownTimeoutMs ?? settings.drainTimeoutMs,
      ...(settings.plaintextCacheSeconds === 0 ? { revisionCacheBytes: 0 } : {}),
      ...(tlsMaterial ? { tls: tlsMaterial } : {}),
      ...(metrics ? { onResponse: metrics.onResponse } : {}),
    }).catch((thrown: unknown) => {
      throw tls && isTlsLoadError(thrown) ? new Error(`TLS_CERT_FILE/TLS_KEY_FILE: ${(thrown as Error).message}`) : thrown;
    });
    if (metering && metrics && settings.metrics) {
      metrics.watchHandler(running.handler);
      metrics.watchInstance(strongroom);
      metricsServer = await metering.serveMetrics(metrics, settings.metrics);
      for (const sink of sinks) {
        metrics.registerAuditSinkLag(sink.name, () => {
          const lag = sink.lag();
          return { entries: lag.pending, seconds: lag.lagMs / 1000, dropped: lag.dropped };
        });
      }
    }
  } catch (thrown) {
    if (running) await running.close();
    else await strongroom.close();
    throw thrown;
  }
  if (!tls && !isLoopbackHost(settings.host)) {
    warn(
      `serving plain HTTP on ${settings.host}, which is not a loopback address: tokens and secrets cross the network unencrypted. ` +
        "Set TLS_CERT_FILE and TLS_KEY_FILE, or put a TLS-terminating proxy in front and listen on 127.0.0.1",
    );
  }
  strongroom.scheduler.start(settings.schedulerTickMs);

  const server = running;
  const served = metricsServer;
  return {
    ...server,
    strongroom,
    auditSinkLag: () => sinks.map((sink) => sink.lag()),
    ...(metrics && served ? { metrics: { ...metrics, url: served.url } } : {}),
    async reloadTls() {
      if (!tls) return false;
      server.setCertificate(await readTls(tls));
      return true;
    },
    async close() {
      await server.close();
      await served?.close();
    },
  };
}

async function readTls(files: TlsFiles): Promise<TlsMaterial> {
  const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
  return { cert, key };
}

/** OpenSSL's complaints about a certificate or key (bad PEM, a key that is not the certificate's). */
const isTlsLoadError = (thrown: unknown) => thrown instanceof Error && /^ERR_OSSL|PEM|key values mismatch/i.test(`${(thrown as NodeJS.ErrnoException).code ?? ""} ${thrown.message}`);
