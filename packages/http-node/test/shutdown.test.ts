import { describe, expect, it } from "vitest";
import { listen } from "@strongroom/http-node";
import { createFakeStrongroom, testRoutes } from "./helpers/fake-strongroom.js";
import { send } from "./helpers/http.js";

describe("graceful shutdown", () => {
  it("lets an in-flight request finish, refuses new connections, then closes strongroom", async () => {
    const fake = createFakeStrongroom();
    const running = await listen(fake.strongroom, { routes: testRoutes, logger: () => {} });
    const port = Number(new URL(running.url).port);
    const gate = fake.holdRequests();

    const inFlight = send(port, "POST", "/api/v1/hold");
    await gate.entered;
    const closed = running.close();
    // Closing does not wait for a request that is still working...
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.closeCount).toBe(0);
    await expect(send(port, "GET", "/api/status")).rejects.toThrow(/ECONNREFUSED/);

    // ...until it is done, and its client gets the full answer.
    gate.release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
    await closed;
    expect(fake.closeCount).toBe(1);
    expect(running.server.listening).toBe(false);
  });

  it("stops waiting for a request that outlives the shutdown bound", async () => {
    const fake = createFakeStrongroom();
    const running = await listen(fake.strongroom, { routes: testRoutes, logger: () => {}, shutdownTimeoutMs: 50 });
    const gate = fake.holdRequests();
    const stuck = send(Number(new URL(running.url).port), "POST", "/api/v1/hold").catch((error: Error) => error);
    await gate.entered;
    await running.close();
    expect(fake.closeCount).toBe(1);
    expect(await stuck).toBeInstanceOf(Error);
    gate.release();
  });
});
