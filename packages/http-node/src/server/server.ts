import { mkdir, readFile } from "node:fs/promises";
import { createStrongroom, type Strongroom } from "@strongroom/core";
import { openBackend } from "./backend.js";
import { listen, type RunningServer } from "./listen.js";
import type { Logger } from "../logger.js";
import { loadRootKey } from "./root-key.js";
import { readServerSettings, type ServerEnv } from "./settings.js";

export interface StrongroomServer extends RunningServer {
  readonly strongroom: Strongroom;
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
  const rootKey = await loadRootKey(settings.rootKey, settings.dataDir);
  const { storage, bus } = await openBackend(settings);

  let strongroom: Strongroom;
  try {
    strongroom = await createStrongroom({
      storage,
      bus,
      rootKey,
      config: {
        allowPrivateTargets: settings.allowPrivateTargets,
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

  try {
    const running = await listen(strongroom, {
      port: settings.port,
      host: settings.host,
      rateLimit: settings.rateLimit ?? false,
      logger: options.logger,
      shutdownTimeoutMs: options.shutdownTimeoutMs,
    });
    strongroom.scheduler.start(settings.schedulerTickMs);
    return { ...running, strongroom };
  } catch (thrown) {
    await strongroom.close();
    throw thrown;
  }
}
