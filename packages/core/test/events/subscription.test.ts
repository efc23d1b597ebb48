import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { anonymous, StrongroomError, type ProjectEvent } from "@strongroom/core";
import { forEachStore } from "@strongroom/core/testing";
import { MAX_QUEUED_EVENTS, RECHECK_INTERVAL_MS, RECHECK_TICK_MS, subscriptionsOf } from "../../src/events/index.js";
import { eventsWorld as worldOn, reader, type EventsWorld } from "./world.js";

const everywhere = { secretPath: "/**" };
const allKinds = (["secret:create", "secret:update", "secret:delete", "secret:import-mutation"] as const).map((event) => ({ event, conditions: everywhere }));
const dev = (w: EventsWorld, secretPath = "/") => ({ projectId: w.projectId, environment: "dev", secretPath });

function codeOf(thrown: unknown): string | undefined {
  return thrown instanceof StrongroomError ? thrown.code : undefined;
}

async function refusal(promise: Promise<unknown>): Promise<StrongroomError> {
  const thrown = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(thrown instanceof StrongroomError)) throw new Error(`expected a refusal, got ${String(thrown)}`);
  return thrown;
}

const revoke = (w: EventsWorld, tokenId: string) =>
  w.sr.context.storage.tables.accessTokens.update({ id: tokenId }, { revokedAt: w.clock.now().toISOString() });

afterEach(() => {
  vi.useRealTimers();
});

forEachStore("live events", (store) => {
  // Each test has an instance of its own: several look at every listener and timer the instance holds.
  const eventsWorld = async () => {
    const w = await worldOn(await store.open());
    onTestFinished(() => w.close());
    return w;
  };

  describe("events.subscribe", () => {
    it("delivers secret writes as parsed events with ids counting up per subscription", async () => {
      const w = await eventsWorld();
      const { actor } = await w.identity(["viewer"]);
      const subscription = await w.sr.events.subscribe(actor, { projectId: w.projectId, register: allKinds });
      const events = reader(subscription);
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "A", secretValue: "1" });
      await w.sr.secrets.update(w.admin, { ...dev(w), secretName: "A", secretValue: "2" });
      await w.sr.secrets.delete(w.admin, { ...dev(w), secretName: "A" });
      const base = { projectId: w.projectId, projectType: "secret-manager", payload: [{ environment: "dev", secretPath: "/", secretKey: "A" }] };
      expect([await events.next(), await events.next(), await events.next()]).toEqual([
        { ...base, id: "1", eventType: "secret:create" },
        { ...base, id: "2", eventType: "secret:update" },
        { ...base, id: "3", eventType: "secret:delete" },
      ]);
      subscription.cancel();
      expect(await events.end()).toBeUndefined();
    });

    it("offers the same events as deliveries for adapters, with the event as published", async () => {
      const w = await eventsWorld();
      const subscription = await w.sr.events.subscribe(w.admin, { projectId: w.projectId, register: [{ event: "secret:create" }] });
      const deliveries = subscription.deliveries[Symbol.asyncIterator]();
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "A" });
      const payload = [{ environment: "dev", secretPath: "/", secretKey: "A" }];
      expect((await deliveries.next()).value).toEqual({
        kind: "event",
        id: "1",
        // The source carries the items' tags (what decides who may see them); they are never sent.
        source: { projectId: w.projectId, projectType: "secret-manager", eventType: "secret:create", payload, itemTags: [[]] },
        payload,
      });
      await deliveries.return!();
      expect(w.sr.context.bus.listenerCount()).toBe(0);
    });

    it("replays nothing and ignores other projects", async () => {
      const w = await eventsWorld();
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "BEFORE" });
      const subscription = await w.sr.events.subscribe(w.admin, { projectId: w.projectId, register: [{ event: "secret:create" }] });
      const events = reader(subscription);
      w.sr.context.bus.publish({ projectId: "another", projectType: "secret-manager", eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: "X" }] });
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "AFTER" });
      expect((await events.next()).payload).toEqual([{ environment: "dev", secretPath: "/", secretKey: "AFTER" }]);
      subscription.cancel();
    });

    it("refuses before opening: 401 without a principal, 404 for an unknown project, 422 for a malformed request", async () => {
      const w = await eventsWorld();
      const ok = { projectId: w.projectId, register: [{ event: "secret:create" as const }] };
      expect(codeOf(await refusal(w.sr.events.subscribe(anonymous, ok)))).toBe("UnauthorizedError");
      expect(codeOf(await refusal(w.sr.events.subscribe(w.admin, { ...ok, projectId: "00000000-0000-4000-8000-000000000000" })))).toBe("NotFound");
      const malformed = [
        { ...ok, register: [] },
        { ...ok, register: Array.from({ length: 11 }, () => ({ event: "secret:create" })) },
        { ...ok, register: [{ event: "secret:rotate" }] },
        { ...ok, register: [{ event: "secret:create", conditions: { secretpath: "/**" } }] },
        { ...ok, register: [{ event: "secret:create", conditions: { secretPath: "apps/**" } }] },
        { register: ok.register },
      ];
      for (const input of malformed) {
        const error = await refusal(w.sr.events.subscribe(w.admin, input as never));
        expect(error.code).toBe("ValidationFailure");
      }
      expect(w.sr.context.bus.listenerCount()).toBe(0);
    });

    it("refuses with 403 naming every registration the actor may not subscribe to", async () => {
      const w = await eventsWorld();
      const limited = await w.role("dev-apps-events", [
        { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated"], conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } },
      ]);
      const { actor } = await w.identity([limited]);
      const error = await refusal(
        w.sr.events.subscribe(actor, {
          projectId: w.projectId,
          register: [
            { event: "secret:create", conditions: { environmentSlug: "dev", secretPath: "/apps/**" } },
            { event: "secret:update", conditions: { environmentSlug: "prod", secretPath: "/apps/**" } },
            { event: "secret:delete", conditions: { environmentSlug: "dev", secretPath: "/apps/api" } },
            { event: "secret:create", conditions: everywhere },
          ],
        }),
      );
      expect(error.code).toBe("PermissionDenied");
      expect(error.message).toContain("subscribe-on-updated on secret-events for secret:update (environment prod, secretPath /apps/**)");
      expect(error.details).toEqual({
        missingPermissions: [
          { subject: "secret-events", action: "subscribe-on-updated", conditions: { eventType: "secret:update", environment: "prod", secretPath: "/apps/**" } },
          { subject: "secret-events", action: "subscribe-on-deleted", conditions: { eventType: "secret:delete", environment: "dev", secretPath: "/apps/api" } },
          { subject: "secret-events", action: "subscribe-on-created", conditions: { eventType: "secret:create", secretPath: "/**" } },
        ],
      });
      const noAccess = await w.identity(["no-access"]);
      expect(codeOf(await refusal(w.sr.events.subscribe(noAccess.actor, { projectId: w.projectId, register: [{ event: "secret:create" }] })))).toBe("PermissionDenied");
    });

    it("delivers only the items the actor's secret-events permission covers", async () => {
      const w = await eventsWorld();
      const limited = await w.role("apps-without-hidden", [
        { subject: "secret-events", action: "subscribe-on-created", conditions: { environment: "dev", secretPath: { $glob: "/apps/**" } } },
        { subject: "secret-events", action: "subscribe-on-created", conditions: { secretName: "HIDDEN" }, inverted: true },
        // An item naming a secret also needs describing it.
        { subject: "secrets", action: "describeSecret" },
      ]);
      const { actor } = await w.identity([limited]);
      const subscription = await w.sr.events.subscribe(actor, {
        projectId: w.projectId,
        register: [{ event: "secret:create", conditions: { environmentSlug: "dev", secretPath: "/apps/**" } }],
      });
      const events = reader(subscription);
      await w.sr.secrets.createMany(w.admin, { ...dev(w, "/apps/api"), secrets: [{ secretKey: "HIDDEN" }] });
      await w.sr.secrets.createMany(w.admin, { ...dev(w, "/apps/api"), secrets: [{ secretKey: "VISIBLE" }, { secretKey: "HIDDEN2" }, { secretKey: "HIDDEN", secretPath: "/apps" }] });
      expect(await events.next()).toMatchObject({ id: "1", payload: [{ environment: "dev", secretPath: "/apps/api", secretKey: "VISIBLE" }, { environment: "dev", secretPath: "/apps/api", secretKey: "HIDDEN2" }] });
      subscription.cancel();
    });

    it("allows 5 open subscriptions per actor and project, the 6th gets 429 until one closes", async () => {
      const w = await eventsWorld();
      const { actor } = await w.identity(["viewer"]);
      const input = { projectId: w.projectId, register: [{ event: "secret:create" as const }] };
      const open = await Promise.all(Array.from({ length: 5 }, () => w.sr.events.subscribe(actor, input)));
      const error = await refusal(w.sr.events.subscribe(actor, input));
      expect(error.code).toBe("RateLimitExceeded");
      // Other actors have their own allowance.
      const other = await w.identity(["viewer"]);
      (await w.sr.events.subscribe(other.actor, input)).cancel();
      open[0].cancel();
      open.push(await w.sr.events.subscribe(actor, input));
      for (const subscription of open) subscription.cancel();
    });

    it("releases the bus listener and its allowance after 1,000 open/close cycles", async () => {
      const w = await eventsWorld();
      const bus = w.sr.context.bus;
      const before = bus.listenerCount();
      const { actor } = await w.identity(["viewer"]);
      const input = { projectId: w.projectId, register: [{ event: "secret:create" as const }] };
      for (let i = 0; i < 1000; i++) {
        const subscription = await w.sr.events.subscribe(actor, input);
        if (i % 2 === 0) {
          subscription.cancel();
        } else {
          // Leaving a `for await` loop releases the subscription too.
          bus.publish({ projectId: w.projectId, projectType: "secret-manager", eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: "K" }] });
          for await (const event of subscription.events) if (event) break;
        }
      }
      expect(bus.listenerCount()).toBe(before);
      const five = await Promise.all(Array.from({ length: 5 }, () => w.sr.events.subscribe(actor, input)));
      for (const subscription of five) subscription.cancel();
      expect(bus.listenerCount()).toBe(before);
    });

    it("ends every subscription when the instance's registry is told to (shutdown), after what is queued", async () => {
      const w = await eventsWorld();
      const input = { projectId: w.projectId, register: [{ event: "secret:create" as const }] };
      const [first, second] = [await w.sr.events.subscribe(w.admin, input), await w.sr.events.subscribe(w.admin, input)];
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "LAST" });
      subscriptionsOf(w.sr.context).endAll();
      const received = [];
      for await (const event of first.events) received.push(event.id);
      expect(received).toEqual(["1"]);
      expect(await reader(second).next()).toMatchObject({ id: "1" });
      expect(subscriptionsOf(w.sr.context).size).toBe(0);
      expect(w.sr.context.bus.listenerCount()).toBe(0);
    });

    it("ends a subscription whose consumer stops reading, once its queue is full", async () => {
      const w = await eventsWorld();
      const subscription = await w.sr.events.subscribe(w.admin, { projectId: w.projectId, register: [{ event: "secret:create" }] });
      const event: ProjectEvent = { projectId: w.projectId, projectType: "secret-manager", eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: "K" }] };
      for (let i = 0; i < MAX_QUEUED_EVENTS + 10; i++) w.sr.context.bus.publish(event);
      // Released as soon as it overflowed, before anyone reads.
      expect(w.sr.context.bus.listenerCount()).toBe(0);
      let received = 0;
      const error = await (async () => {
        try {
          for await (const _ of subscription.events) received++;
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(received).toBe(MAX_QUEUED_EVENTS);
      expect(codeOf(error)).toBe("RateLimitExceeded");
    });
  });

  describe("the periodic re-check", () => {
    const register = [{ event: "secret:create" as const, conditions: everywhere }];

    it("is due after the re-check interval (1 s): a revoked token ends the subscription at the next event with 401", async () => {
      const w = await eventsWorld();
      const { actor } = await w.identity(["viewer"]);
      const events = reader(await w.sr.events.subscribe(actor, { projectId: w.projectId, register }));
      await revoke(w, actor.tokenId);
      // Not yet due: the event is delivered.
      w.clock.advance(RECHECK_INTERVAL_MS - 1);
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "BEFORE" });
      expect((await events.next()).payload).toEqual([{ environment: "dev", secretPath: "/", secretKey: "BEFORE" }]);
      w.clock.advance(1);
      await w.sr.secrets.create(w.admin, { ...dev(w), secretName: "AFTER" });
      const error = await events.end();
      expect([codeOf(error), (error as Error).message]).toEqual(["UnauthorizedError", "The access token has expired or was revoked"]);
      expect(w.sr.context.bus.listenerCount()).toBe(0);
    });

    it("lets a subscription that is still allowed carry on, under the permissions as they are now", async () => {
      const w = await eventsWorld();
      const { actor, membershipId } = await w.identity(["viewer"]);
      const events = reader(await w.sr.events.subscribe(actor, { projectId: w.projectId, register }));
      const narrower = await w.role("events-but-not-b", [
        { subject: "secret-events", action: "subscribe-on-created" },
        { subject: "secret-events", action: "subscribe-on-created", conditions: { secretName: "B" }, inverted: true },
        { subject: "secrets", action: "describeSecret" },
      ]);
      await w.sr.memberships.updateRoles(w.admin, { projectId: w.projectId, membershipId, roles: [{ role: narrower, isTemporary: false }] });
      // Before the re-check, the permissions the subscription opened with still apply.
      await w.sr.secrets.createMany(w.admin, { ...dev(w), secrets: [{ secretKey: "A" }, { secretKey: "B" }] });
      expect((await events.next()).payload).toHaveLength(2);
      w.clock.advance(RECHECK_INTERVAL_MS);
      await w.sr.secrets.createMany(w.admin, { ...dev(w), secrets: [{ secretKey: "C" }, { secretKey: "B", secretPath: "/apps" }] });
      expect(await events.next()).toMatchObject({ id: "2", payload: [{ secretKey: "C" }] });
    });

    it("runs on the timer too: lost permissions end the subscription with 403", async () => {
      vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
      const w = await eventsWorld();
      const { actor, membershipId } = await w.identity(["viewer"]);
      const subscription = await w.sr.events.subscribe(actor, { projectId: w.projectId, register });
      const events = reader(subscription);
      await w.sr.memberships.updateRoles(w.admin, { projectId: w.projectId, membershipId, roles: [{ role: "no-access", isTemporary: false }] });
      // The timer fires, but the clock says the last check is recent: nothing happens.
      vi.advanceTimersByTime(RECHECK_TICK_MS);
      w.sr.context.bus.publish({ projectId: w.projectId, projectType: "secret-manager", eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: "K" }] });
      expect((await events.next()).id).toBe("1");
      w.clock.advance(RECHECK_INTERVAL_MS);
      vi.advanceTimersByTime(RECHECK_TICK_MS);
      const error = await events.end();
      expect(codeOf(error)).toBe("PermissionDenied");
      expect(vi.getTimerCount()).toBe(0);
    });

    it("ends the deliveries view with the failure, then nothing", async () => {
      const w = await eventsWorld();
      const { actor } = await w.identity(["viewer"]);
      const subscription = await w.sr.events.subscribe(actor, { projectId: w.projectId, register });
      w.clock.advance(30 * 24 * 60 * 60 * 1000);
      w.sr.context.bus.publish({ projectId: w.projectId, projectType: "secret-manager", eventType: "secret:create", payload: [{ environment: "dev", secretPath: "/", secretKey: "K" }] });
      const deliveries = [];
      for await (const delivery of subscription.deliveries) deliveries.push(delivery);
      expect(deliveries).toMatchObject([{ kind: "error", error: { code: "UnauthorizedError", message: "The access token has expired or was revoked" } }]);
    });
  });
});
