import { describe, expect, it } from "vitest";
import { listen } from "@strongroom/http-node";
import { createFakeStrongroom, testRoutes } from "./helpers/fake-strongroom.js";
import { send } from "./helpers/http.js";

describe("graceful shutdown (drain)", () => {
  it("lets an in-flight request finish, answers requests arriving meanwhile with Connection: close, then closes strongroom", async () => {
    const fake = createFakeStrongroom();
    const running = await listen(fake.strongroom, { routes: testRoutes, logger: () => {}, drainQuietMs: 50 });
    const port = Number(new URL(running.url).port);
    const gate = fake.holdRequests();

    const inFlight = send(port, "POST", "/api/v1/hold");
    await gate.entered;
    const closed = running.close();
    // Closing does not wait for a request that is still working...
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.closeCount).toBe(0);
    expect(running.handler.draining).toBe(true);
    // ...and a client that sends now is still answered, told not to reuse the connection.
    const late = await send(port, "GET", "/api/status");
    expect(late.status).toBe(200);
    expect(late.headers.connection).toBe("close");

    // The held request gets its full answer, also with Connection: close.
    gate.release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true });
    expect(reply.headers.connection).toBe("close");
    await closed;
    expect(fake.closeCount).toBe(1);
    expect(running.server.listening).toBe(false);
    await expect(send(port, "GET", "/api/status")).rejects.toThrow(/ECONNREFUSED/);
  });

  it("stops waiting for a request that outlives the drain bound", async () => {
    const fake = createFakeStrongroom();
    const running = await listen(fake.strongroom, { routes: testRoutes, logger: () => {}, drainTimeoutMs: 50, drainQuietMs: 10 });
    const gate = fake.holdRequests();
    const stuck = send(Number(new URL(running.url).port), "POST", "/api/v1/hold").catch((error: Error) => error);
    await gate.entered;
    await running.close();
    expect(fake.closeCount).toBe(1);
    expect(await stuck).toBeInstanceOf(Error);
    gate.release();
  });
});
