import { randomUUID } from "node:crypto";
import { createLocalBus, type EventBus, type ProjectEvent } from "@strongroom/core";
import { Kysely, PostgresDialect, sql } from "@strongroom/storage-kysely/kysely";
import type pg from "pg";
import { type Listener, startListener } from "./listener.js";
import { advisoryXactLock } from "./lock.js";
import { createPool, warnOnError } from "./pool.js";

export interface PostgresBusOptions {
  connectionString: string;
  /** NOTIFY channel shared by every node of one deployment. */
  channel?: string;
  /** Overrides for the small pool used to publish (default max 2). */
  pool?: pg.PoolConfig;
  /** Told about lost connections and failed publishes; by default one warning line each. */
  onError?: (error: Error) => void;
}

/** NOTIFY payloads must stay under 8,000 bytes; larger events travel through this table. */
const PAYLOAD_TABLE = "strongroom_bus_payloads";
const MAX_INLINE_BYTES = 7_500;
/** Long enough for every node to fetch a large event, short enough to keep the table small. */
const PAYLOAD_RETENTION = "10 minutes";
const REFERENCE = "ref:";
/** An access-change notice (events are JSON objects, so no event starts this way), then the sender's node id. */
const ACCESS_CHANGED = "access:";
const RELAY_LOST = "The event relay lost its PostgreSQL connection; events may have been missed";
const PUBLISH_FAILED = "An event could not be relayed through PostgreSQL and was missed";

/**
 * An event bus spanning every node on one PostgreSQL database. Publishing sends a NOTIFY; each
 * node, the publisher included, delivers to its local subscribers when the notification arrives,
 * so every subscriber sees every event exactly once and in publishing order.
 */
export async function createPostgresBus(options: PostgresBusOptions): Promise<EventBus> {
  const { connectionString, channel = "strongroom_events" } = options;
  const onError = options.onError ?? warnOnError;
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: createPool(connectionString, { max: 2, ...options.pool }, onError) }) });

  try {
    await db.transaction().execute(async (trx) => {
      await advisoryXactLock("strongroom:bus").execute(trx);
      await trx.schema
        .createTable(PAYLOAD_TABLE)
        .ifNotExists()
        .addColumn("id", "text", (column) => column.primaryKey())
        .addColumn("payload", "text", (column) => column.notNull())
        .addColumn("createdAt", "timestamptz", (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }

  const local = createLocalBus();
  const gapListeners = new Set<(reason: string) => void>();
  const gap = (reason: string) => {
    for (const listener of [...gapListeners]) listener(reason);
  };
  let delivering = Promise.resolve();
  // Access-change notices carry this node's id, so a node ignores its own.
  const nodeId = randomUUID();
  const accessListeners = new Set<() => void>();
  const receive = async (message: string) => {
    if (message.startsWith(ACCESS_CHANGED)) {
      if (message.slice(ACCESS_CHANGED.length) !== nodeId) for (const listener of [...accessListeners]) listener();
      return;
    }
    const event = message.startsWith(REFERENCE) ? await fetchLarge(message.slice(REFERENCE.length)) : JSON.parse(message);
    if (event) local.deliverLocally(event as ProjectEvent);
  };
  const fetchLarge = async (id: string) => {
    const row = await db.selectFrom(PAYLOAD_TABLE).select("payload").where("id", "=", id).executeTakeFirst();
    return row ? (JSON.parse(row.payload as string) as ProjectEvent) : undefined;
  };

  let listener: Listener;
  try {
    listener = await startListener({
      connectionString,
      channel,
      onError,
      onLost: () => gap(RELAY_LOST),
      // Chained so a large event being fetched is not overtaken by the small one after it.
      onNotification: (message) => {
        delivering = delivering.then(() => receive(message)).catch(onError);
      },
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }

  const send = async (event: ProjectEvent) => {
    const json = JSON.stringify(event);
    if (Buffer.byteLength(json) <= MAX_INLINE_BYTES) {
      await sql`select pg_notify(${channel}, ${json})`.execute(db);
      return;
    }
    const id = randomUUID();
    // One transaction: the notification goes out only once the row it points to is committed.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto(PAYLOAD_TABLE).values({ id, payload: json }).execute();
      await sql`select pg_notify(${channel}, ${REFERENCE + id})`.execute(trx);
    });
    await db.deleteFrom(PAYLOAD_TABLE).where("createdAt", "<", sql<Date>`now() - ${PAYLOAD_RETENTION}::interval`).execute();
  };

  let publishing = Promise.resolve();
  let closed = false;
  return {
    publish(event) {
      if (closed) return;
      publishing = publishing
        .then(() => send(event))
        .catch((error: Error) => {
          onError(error);
          // Nobody, on any node, receives this event: this node's subscribers at least are told.
          gap(PUBLISH_FAILED);
        });
    },
    subscribe: local.subscribe,
    listenerCount: local.listenerCount,
    unavailableReason: () => (closed || listener.connected ? undefined : RELAY_LOST),
    onGap(handler) {
      gapListeners.add(handler);
      return () => gapListeners.delete(handler);
    },
    announceAccessChange() {
      if (closed) return;
      // In line with the events: a notice never overtakes an event published before it.
      publishing = publishing
        .then(async () => {
          await sql`select pg_notify(${channel}, ${ACCESS_CHANGED + nodeId})`.execute(db);
        })
        .catch((error: Error) => {
          onError(error);
          gap(PUBLISH_FAILED);
        });
    },
    onAccessChange(listener) {
      accessListeners.add(listener);
      return () => accessListeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      await publishing;
      await listener.close();
      await delivering;
      await db.destroy();
      await local.close();
    },
  };
}
