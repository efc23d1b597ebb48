import { afterEach, describe, expect, it } from "vitest";
import { parseRateLimit, RateLimiter } from "@strongroom/http-node";
import { expectErrorBody } from "./helpers/error-shape.js";
import { IDENTITY_TOKEN, USER_TOKEN } from "./helpers/fake-strongroom.js";
import { startTestServer, type TestServer } from "./helpers/http.js";

let api: TestServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("rate limiting", () => {
  it("is off unless configured", async () => {
    api = await startTestServer();
    for (let i = 0; i < 30; i++) expect((await api.send("GET", "/api/status")).status).toBe(200);
  });

  it("answers a client past its burst with 429 and Retry-After", async () => {
    // A rate so slow that no token comes back while the test runs.
    api = await startTestServer({ rateLimit: { requestsPerSecond: 0.01, burst: 3 } });
    for (let i = 0; i < 3; i++) expect((await api.send("GET", "/api/status")).status).toBe(200);
    const reply = await api.send("GET", "/api/status");
    const body = expectErrorBody(reply, 429, "RateLimitExceeded");
    expect(Number(reply.headers["retry-after"])).toBeGreaterThanOrEqual(90);
    expect(body.message).toBeTypeOf("string");
  });

  it("throttles an actor even while its IP still has room", async () => {
    api = await startTestServer({ rateLimit: { requestsPerSecond: 0.01, burst: 2 } });
    const echo = (token: string, from: string) => api!.send("POST", "/api/v1/projects/p/echo", { token, json: { name: "a" }, localAddress: from });
    expect((await echo(USER_TOKEN, "127.0.0.2")).status).toBe(200);
    expect((await echo(USER_TOKEN, "127.0.0.3")).status).toBe(200);
    // A fresh address, but the same actor: its own bucket is empty.
    expectErrorBody(await echo(USER_TOKEN, "127.0.0.4"), 429, "RateLimitExceeded");
    // Another actor from that address is still served.
    expect((await echo(IDENTITY_TOKEN, "127.0.0.4")).status).toBe(200);
  });
});

describe("RateLimiter", () => {
  it("refills at the configured rate up to the burst", () => {
    let now = 0;
    const limiter = new RateLimiter({ requestsPerSecond: 2, burst: 2 }, () => now);
    expect(limiter.take("k")).toBe(0);
    expect(limiter.take("k")).toBe(0);
    expect(limiter.take("k")).toBeCloseTo(0.5);
    now = 500;
    expect(limiter.take("k")).toBe(0);
    now = 60_000;
    expect(limiter.take("k")).toBe(0);
    expect(limiter.take("k")).toBe(0);
    expect(limiter.take("k")).toBeGreaterThan(0);
  });

  it("parses STRONGROOM_RATE_LIMIT values", () => {
    expect(parseRateLimit("20:40")).toEqual({ requestsPerSecond: 20, burst: 40 });
    expect(parseRateLimit(" 0.5 : 3 ")).toEqual({ requestsPerSecond: 0.5, burst: 3 });
    for (const bad of ["", "20", "a:b", "0:5", "5:0", "-1:3"]) expect(() => parseRateLimit(bad)).toThrow(/STRONGROOM_RATE_LIMIT/);
  });
});
