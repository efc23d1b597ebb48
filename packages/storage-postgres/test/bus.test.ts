import type { EventBus, ProjectEvent } from "@strongroom/core";
import { createPostgresBus } from "@strongroom/storage-postgres";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LISTENER_APPLICATION_NAME } from "../src/listener.js";
import { countSessions, terminateSessions, withPostgres } from "../src/testing.js";

const database = await withPostgres();
afterAll(() => database.drop());

const event = (secretKey: string, extra = 0): ProjectEvent => ({
  projectId: "project-1",
  projectType: "secret-manager",
  eventType: "secret:update",
  payload: [{ environment: "prod", secretPath: "/", secretKey }, ...Array.from({ length: extra }, (_, i) => ({ environment: "prod", secretPath: "/deep/path", secretKey: `KEY_${i}_ünï` }))],
});
const keyOf = (received: ProjectEvent) => (received.payload as { secretKey: string }[])[0].secretKey;

/** A subscriber that records the first secret key of every event it receives. */
function record(bus: EventBus) {
  const keys: string[] = [];
  const events: ProjectEvent[] = [];
  bus.subscribe((received) => {
    keys.push(keyOf(received));
    events.push(received);
  });
  return { keys, events };
}

const waitFor = (check: () => void) => expect.poll(() => (check(), true), { timeout: 10_000 }).toBe(true);

describe.skipIf(!database.available)("postgres event bus", () => {
  const open: EventBus[] = [];
  const bus = async () => {
    const created = await createPostgresBus({ connectionString: database.url, onError: () => undefined });
    open.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((created) => created.close()));
  });

  it("delivers each event once to every subscriber on every node, the publisher's included", async () => {
    const [a, b] = [await bus(), await bus()];
    const onA = record(a);
    const onB1 = record(b);
    const onB2 = record(b);

    a.publish(event("FROM_A"));
    b.publish(event("FROM_B"));
    a.publish(event("LAST"));
    await waitFor(() => {
      for (const seen of [onA, onB1, onB2]) expect(seen.keys).toContain("LAST");
    });
    for (const seen of [onA, onB1, onB2]) {
      expect(seen.keys.filter((key) => key === "FROM_A")).toHaveLength(1);
      expect(seen.keys.filter((key) => key === "FROM_B")).toHaveLength(1);
      expect(seen.keys.indexOf("FROM_A")).toBeLessThan(seen.keys.indexOf("LAST"));
    }
    expect(b.listenerCount()).toBe(2);
  });

  it("carries an event over 8 KB through the payload table, intact and in order", async () => {
    const [a, b] = [await bus(), await bus()];
    const onB = record(b);
    const large = event("LARGE", 200);
    expect(Buffer.byteLength(JSON.stringify(large))).toBeGreaterThan(8_192);

    a.publish(large);
    a.publish(event("SMALL_AFTER"));
    await waitFor(() => expect(onB.keys).toEqual(["LARGE", "SMALL_AFTER"]));
    expect(onB.events[0]).toEqual(large);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ n: string }>("select count(*) as n from strongroom_bus_payloads");
    await client.end();
    expect(Number(rows[0].n)).toBeGreaterThan(0);
  });

  it("reconnects its listener after the server ends the session and delivers later events", async () => {
    const [a, b] = [await bus(), await bus()];
    const onB = record(b);
    expect(await terminateSessions(database.url, LISTENER_APPLICATION_NAME)).toBe(2);

    // Events published while a listener is down are missed (live delivery); probe until both are back.
    let probes = 0;
    await expect
      .poll(
        () => {
          a.publish(event(`PROBE_${probes++}`));
          return onB.keys.some((key) => key.startsWith("PROBE_"));
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(true);
    const onA = record(a);
    a.publish(event("AFTER_RECONNECT"));
    await waitFor(() => {
      expect(onB.keys).toContain("AFTER_RECONNECT");
      expect(onA.keys).toContain("AFTER_RECONNECT");
    });
    expect(onB.keys.filter((key) => key === "AFTER_RECONNECT")).toHaveLength(1);
  });

  it("an unsubscribed listener hears nothing more; close() ends the listening session", async () => {
    const a = await bus();
    const kept = record(a);
    const dropped: string[] = [];
    const unsubscribe = a.subscribe((received) => dropped.push(keyOf(received)));
    unsubscribe();
    a.publish(event("ONE"));
    await waitFor(() => expect(kept.keys).toEqual(["ONE"]));
    expect(dropped).toEqual([]);

    expect(await countSessions(database.url, LISTENER_APPLICATION_NAME)).toBe(1);
    await a.close();
    expect(a.listenerCount()).toBe(0);
    await expect.poll(() => countSessions(database.url, LISTENER_APPLICATION_NAME), { timeout: 10_000 }).toBe(0);
  });
});
