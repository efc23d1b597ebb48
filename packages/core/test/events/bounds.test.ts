import { afterEach, expect, it } from "vitest";
import { createLocalBus, type EventBus } from "@strongroom/core";
import { createTestWorld, type TestWorld } from "@strongroom/core/testing";

let w: TestWorld | undefined;
afterEach(() => w?.close());

const register = [{ event: "secret:create" as const, conditions: { environmentSlug: "dev", secretPath: "/**" } }];
const failure = (attempt: Promise<unknown>) => attempt.then(() => undefined, (error: { code?: string; message?: string; retryAfterSeconds?: number }) => error);

/** A bus whose relay the test can break: `gap(reason)` as a lost connection, `down` while reconnecting. */
function breakableBus() {
  const local = createLocalBus();
  const gapHandlers = new Set<(reason: string) => void>();
  const bus: EventBus & { down?: string; gap(reason: string): void } = {
    ...local,
    unavailableReason: () => bus.down,
    onGap(handler) {
      gapHandlers.add(handler);
      return () => gapHandlers.delete(handler);
    },
    gap: (reason) => gapHandlers.forEach((handler) => handler(reason)),
  };
  return bus;
}

it("refuses subscriptions past the instance's cap with 503 and Retry-After, and takes them again once one closes", async () => {
  w = await createTestWorld({ config: { maxEventStreams: 3 } });
  const open = await Promise.all([1, 2, 3].map(() => w!.sr.events.subscribe(w!.admin, { projectId: w!.projectId, register })));
  const refused = await failure(w.sr.events.subscribe(w.admin, { projectId: w.projectId, register }));
  expect(refused).toMatchObject({ code: "ServiceUnavailable", retryAfterSeconds: 5 });
  open[0].cancel();
  const again = await w.sr.events.subscribe(w.admin, { projectId: w.projectId, register });
  again.cancel();
  for (const subscription of open) subscription.cancel();
});

it("ends every open subscription with a 503 error naming the gap, and refuses new ones while the relay is down", async () => {
  const bus = breakableBus();
  w = await createTestWorld({ bus });
  const subscriptions = await Promise.all([1, 2].map(() => w!.sr.events.subscribe(w!.admin, { projectId: w!.projectId, register })));
  const reason = "The event relay lost its PostgreSQL connection; events may have been missed";
  bus.down = reason;
  bus.gap(reason);
  for (const subscription of subscriptions) {
    const deliveries = [];
    for await (const delivery of subscription.deliveries) deliveries.push(delivery);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ kind: "error", error: { code: "ServiceUnavailable", message: reason } });
  }
  expect(await failure(w.sr.events.subscribe(w.admin, { projectId: w.projectId, register }))).toMatchObject({ code: "ServiceUnavailable", message: reason });

  bus.down = undefined;
  const after = await w.sr.events.subscribe(w.admin, { projectId: w.projectId, register });
  await w.sr.secrets.create(w.admin, { projectId: w.projectId, environment: "dev", secretName: "AFTER_GAP", secretValue: "v" } as never);
  const iterator = after.events[Symbol.asyncIterator]();
  expect((await iterator.next()).value).toMatchObject({ eventType: "secret:create", payload: [{ secretKey: "AFTER_GAP" }] });
  after.cancel();
});
