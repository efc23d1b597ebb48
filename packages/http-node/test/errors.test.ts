import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody } from "./helpers/error-shape.js";
import { INTERNAL_DETAIL, USER_TOKEN } from "./helpers/fake-strongroom.js";
import { startTestServer, type TestServer } from "./helpers/http.js";

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

describe("error bodies", () => {
  it("answers an unknown route with a 404 NotFound body", async () => {
    const reply = await api.send("GET", "/api/v9/nothing/here");
    expectErrorBody(reply, 404, "NotFound");
  });

  it("answers a known path with the wrong method with 404", async () => {
    expectErrorBody(await api.send("DELETE", "/api/status"), 404, "NotFound");
  });

  it("gives each request its own id, in the body and the x-request-id header", async () => {
    const first = expectErrorBody(await api.send("GET", "/nope"), 404, "NotFound");
    const second = expectErrorBody(await api.send("GET", "/nope"), 404, "NotFound");
    expect(first.reqId).not.toBe(second.reqId);
  });

  it("sends x-request-id on successful responses too", async () => {
    const reply = await api.send("GET", "/api/status");
    expect(reply.status).toBe(200);
    expect(reply.headers["x-request-id"]).toMatch(/^req-[A-Za-z0-9]{14}$/);
  });

  it("rejects malformed JSON with 400 BadRequest", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", {
      token: USER_TOKEN,
      headers: { "content-type": "application/json" },
      body: '{"name": "unterminated',
    });
    const body = expectErrorBody(reply, 400, "BadRequest");
    expect(body).not.toHaveProperty("details");
  });

  it("rejects a body that is not UTF-8 with 400", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", { token: USER_TOKEN, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) });
    expectErrorBody(reply, 400, "BadRequest");
  });

  it("rejects a body that is not JSON by content type with 400", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", {
      token: USER_TOKEN,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=a",
    });
    expectErrorBody(reply, 400, "BadRequest");
  });

  it("rejects a path with broken percent-encoding with 400", async () => {
    expectErrorBody(await api.send("POST", "/api/v1/projects/%E0%A4%A/echo", { token: USER_TOKEN, json: { name: "x" } }), 400, "BadRequest");
  });

  it("lists every schema problem with its path as the 422 message", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", { token: USER_TOKEN, json: { name: "", count: "three", extra: 1 } });
    const body = expectErrorBody(reply, 422, "ValidationFailure");
    expect(Array.isArray(body.message)).toBe(true);
    const paths = body.message.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "count"]));
    for (const issue of body.message) expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
  });

  it("rejects a JSON array where an object is expected with 422", async () => {
    expectErrorBody(await api.send("POST", "/api/v1/projects/p1/echo", { token: USER_TOKEN, json: [1, 2] }), 422, "ValidationFailure");
  });

  it("passes an operation's 400 on with its details", async () => {
    const body = expectErrorBody(await api.send("POST", "/api/v1/bad-request", { token: USER_TOKEN }), 400, "BadRequest");
    expect(body.message).toBe("Instance already bootstrapped");
    expect(body.details).toEqual({ hint: "log in instead" });
  });

  it("passes an operation's 403 on with its details", async () => {
    const body = expectErrorBody(await api.send("POST", "/api/v1/forbidden", { token: USER_TOKEN }), 403, "PermissionDenied");
    expect(body.details).toEqual({ missing: ["secrets:read"] });
  });

  it("answers an operation's 429 with Retry-After", async () => {
    const reply = await api.send("POST", "/api/v1/limited", { token: USER_TOKEN });
    expectErrorBody(reply, 429, "RateLimitExceeded");
    expect(reply.headers["retry-after"]).toBe("7");
  });
});

describe("authentication", () => {
  it("answers a principal route without a token with 401", async () => {
    expectErrorBody(await api.send("POST", "/api/v1/projects/p1/echo", { json: { name: "a" } }), 401, "UnauthorizedError");
  });

  it.each([["Basic dXNlcjpwYXNz"], ["Bearer"], ["Bearer "], [`Bearer ${USER_TOKEN} extra`], [USER_TOKEN], ["Bearer tok\u00e9n"]])(
    "answers the malformed Authorization header %j with 401",
    async (header) => {
      const reply = await api.send("POST", "/api/v1/projects/p1/echo", { headers: { authorization: header }, json: { name: "a" } });
      expectErrorBody(reply, 401, "UnauthorizedError");
    },
  );

  it("answers an unknown token with 401, even on a public route", async () => {
    expectErrorBody(await api.send("GET", "/api/status", { token: "not-a-token" }), 401, "UnauthorizedError");
  });

  it("accepts the scheme name in any case", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", { headers: { authorization: `bearer ${USER_TOKEN}` }, json: { name: "a" } });
    expect(reply.status).toBe(200);
  });
});

describe("unexpected failures", () => {
  it("hides internals behind a generic 500 and logs the cause without the token", async () => {
    const reply = await api.send("POST", "/api/v1/boom", { token: USER_TOKEN });
    const body = expectErrorBody(reply, 500, "InternalServerError");
    expect(body.message).toBe("Something went wrong");
    expect(reply.text).not.toContain(INTERNAL_DETAIL);
    expect(reply.text).not.toContain("connection failed");

    const logged = api.logs.find((entry) => entry.level === "error" && entry.reqId === body.reqId);
    expect(logged?.error.message).toContain("connection failed");
    expect(api.rawLogs.join("\n")).not.toContain(USER_TOKEN);
  });
});

describe("request size", () => {
  it("answers a declared body over 1 MiB with 413 without reading it", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p1/echo", {
      token: USER_TOKEN,
      json: { name: "x".repeat(1024 * 1024 + 10) },
    });
    expectErrorBody(reply, 413, "PayloadTooLarge");
  });

  it("stops reading a chunked body once it passes the limit", async () => {
    const small = await startTestServer({ maxBodyBytes: 1024 });
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(small.port, "127.0.0.1", () => {
          socket.write(
            `POST /api/v1/projects/p1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\n` +
              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
          );
          const chunk = "a".repeat(512);
          // Far more than the limit, offered in pieces as a slow uploader would.
          for (let i = 0; i < 8; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        });
        let text = "";
        socket.on("data", (data) => (text += data.toString()));
        socket.on("close", () => resolve(text));
        socket.on("error", reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 413 /);
      const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4));
      expect(body).toEqual({ reqId: expect.stringMatching(/^req-/), statusCode: 413, message: expect.any(String), error: "PayloadTooLarge" });
      expect((await small.send("GET", "/api/status")).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
