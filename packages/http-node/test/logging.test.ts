import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDENTITY_TOKEN, USER_TOKEN } from "./helpers/fake-strongroom.js";
import { eventually, startTestServer, type TestServer } from "./helpers/http.js";

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

describe("request log", () => {
  it("writes one JSON line per request with the route template, not the URL", async () => {
    const reply = await api.send("GET", "/api/v1/projects/proj-secret-id/items?limit=3&tag=private", { token: USER_TOKEN });
    const reqId = reply.headers["x-request-id"];
    await eventually(() => api.logs.some((entry) => entry.reqId === reqId), "request log line");
    const lines = api.logs.filter((entry) => entry.reqId === reqId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      level: "info",
      time: expect.any(String),
      reqId,
      method: "GET",
      route: "/api/v1/projects/{projectId}/items",
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(Number.isNaN(Date.parse(lines[0].time))).toBe(false);
  });

  it("never logs tokens, headers or bodies", async () => {
    const marker = "BODY-MARKER-4711";
    await api.send("POST", "/api/v1/projects/p1/echo", {
      token: IDENTITY_TOKEN,
      headers: { "x-custom": "HEADER-MARKER-0815" },
      json: { name: marker },
    });
    await api.send("POST", "/api/v1/projects/p1/echo", { token: USER_TOKEN, body: `{"name": "${marker}` });
    await api.send("POST", "/api/v1/projects/p1/echo", { token: "wrong-token-MARKER", json: { name: marker } });
    await eventually(() => api.rawLogs.length >= 3, "log lines");
    const all = api.rawLogs.join("\n");
    for (const secret of [marker, "HEADER-MARKER-0815", IDENTITY_TOKEN, USER_TOKEN, "wrong-token-MARKER"]) {
      expect(all).not.toContain(secret);
    }
  });

  it("logs unmatched requests with a null route and the status sent", async () => {
    const reply = await api.send("GET", "/no/such/path?token=abc");
    const reqId = reply.headers["x-request-id"];
    await eventually(() => api.logs.some((entry) => entry.reqId === reqId), "request log line");
    const line = api.logs.find((entry) => entry.reqId === reqId);
    expect(line).toMatchObject({ route: null, status: 404, method: "GET" });
    expect(JSON.stringify(line)).not.toContain("token=abc");
  });
});
