import pg from "pg";
import type { ErrorHandler } from "./pool.js";

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  onNotification(payload: string): void;
  onError: ErrorHandler;
  /**
   * The connection was lost: notifications sent from now until it is back are missed. Called once
   * per loss, before reconnecting starts.
   */
  onLost?(): void;
  /** Wait before the first reconnection attempt; it doubles per failure up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the connection is checked, so a silently dropped one is noticed. */
  pingIntervalMs?: number;
}

export interface Listener {
  /** True while LISTEN is in effect on a live connection. */
  readonly connected: boolean;
  close(): Promise<void>;
}

/** Shows up in pg_stat_activity, so operators (and tests) can find the listening session. */
export const LISTENER_APPLICATION_NAME = "strongroom-bus";

/**
 * A dedicated connection that LISTENs on one channel and, when it is lost, reconnects with
 * exponential backoff (plus jitter, so a restarted server is not hit by every node at once).
 * Notifications sent while it is disconnected are missed: the bus is live, not a queue.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const { channel, onNotification, onError, initialBackoffMs = 100, maxBackoffMs = 5_000, pingIntervalMs = 30_000 } = options;
  let current: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const client = new pg.Client({ connectionString: options.connectionString, application_name: LISTENER_APPLICATION_NAME, keepAlive: true });
    client.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) onNotification(message.payload);
    });
    client.on("error", (error) => lost(client, error));
    client.on("end", () => lost(client));
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (closed) return void (await client.end());
    current = client;
    failures = 0;
  };

  const lost = (client: pg.Client, error?: Error) => {
    if (client !== current || closed) return;
    current = undefined;
    client.end().catch(() => undefined);
    if (error) onError(error);
    options.onLost?.();
    reconnectLater();
  };

  const reconnectLater = () => {
    const delay = Math.min(maxBackoffMs, initialBackoffMs * 2 ** failures++) * (0.5 + Math.random() / 2);
    retry = setTimeout(() => {
      connect().catch((error: Error) => {
        onError(error);
        if (!closed) reconnectLater();
      });
    }, delay);
  };

  const ping = setInterval(() => {
    const client = current;
    client?.query("select 1").catch((error: Error) => lost(client, error));
  }, pingIntervalMs);
  ping.unref();

  try {
    await connect();
  } catch (error) {
    clearInterval(ping);
    throw error;
  }

  return {
    get connected() {
      return current !== undefined;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(ping);
      const client = current;
      current = undefined;
      await client?.end();
    },
  };
}
