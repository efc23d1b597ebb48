import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, type RunningServer } from "@strongroom/http-node";
import { createFakeStrongroom, testOperations, testRoutes, USER_TOKEN } from "./helpers/fake-strongroom.js";
import { eventually, send } from "./helpers/http.js";
import { sendRaw, type RawReply } from "./helpers/raw.js";

/** Everything but the operations that fail or hold on purpose. */
const routes = testRoutes.filter((route) => ![testOperations.boom, testOperations.hold].includes(route.operation) && route.kind !== "sse");

let running: RunningServer;
let port: number;
beforeAll(async () => {
  running = await listen(createFakeStrongroom().strongroom, { routes, logger: () => {}, maxBodyBytes: 4096 });
  port = Number(new URL(running.url).port);
});
afterAll(() => running.close());

function expectWellFormed(reply: RawReply) {
  expect(reply.status).toBeGreaterThanOrEqual(200);
  expect(reply.status).toBeLessThan(500);
  // A success may be the API reference page (HTML) or one of its files; every other answer is JSON.
  if (reply.status < 400 && !String(reply.headers["content-type"]).startsWith("application/json")) {
    expect(reply.headers["content-type"]).toMatch(/^(text\/(html|css|javascript)|image\/png)/);
    return;
  }
  const body = JSON.parse(reply.body);
  if (reply.status >= 400) {
    expect(body.reqId).toMatch(/^req-[A-Za-z0-9]{14}$/);
    expect(reply.headers["x-request-id"]).toBe(body.reqId);
    expect(body.statusCode).toBe(reply.status);
    expect(typeof body.error).toBe("string");
    const allowed = ["reqId", "statusCode", "message", "error", ...([400, 403].includes(reply.status) ? ["details"] : [])];
    expect(Object.keys(body).every((key) => allowed.includes(key))).toBe(true);
  }
}

const segment = fc.oneof(
  fc.constantFrom("api", "v1", "v2", "projects", "p1", "echo", "items", "status", "docs", "openapi.json", "", "..", "%", "%zz", "%2F", "%00", "{projectId}"),
  fc.string({ unit: "grapheme-ascii", maxLength: 12 }).map((text) => text.replace(/[\s?#]/g, "")),
  fc.string({ unit: "grapheme", maxLength: 6 }).map(encodeURIComponent),
);
const target = fc
  .tuple(fc.array(segment, { maxLength: 6 }), fc.option(fc.string({ unit: "grapheme-ascii", maxLength: 20 }).map((q) => q.replace(/[\s#]/g, ""))))
  .map(([parts, query]) => `/${parts.join("/")}${query === null ? "" : `?${query}`}`);
const method = fc.oneof(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"), fc.stringMatching(/^[A-Z]{1,10}$/));
const headerValue = fc.string({ unit: "grapheme-ascii", maxLength: 40 }).map((value) => value.replace(/[\r\n]/g, ""));
const headers = fc.record(
  {
    authorization: fc.oneof(fc.constant(`Bearer ${USER_TOKEN}`), fc.constant("Bearer "), headerValue, headerValue.map((v) => `Bearer ${v}`)),
    "content-type": fc.oneof(fc.constantFrom("application/json", "text/plain", "application/json; charset=latin1", "multipart/form-data"), headerValue),
    "x-anything": headerValue,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  fc.json().map((json) => Buffer.from(json)),
  fc.constant(Buffer.from('{"name":"n","projectId":"p","count":1}')),
  fc.string({ maxLength: 200 }).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 4000, max: 5000 }).map((size) => Buffer.alloc(size, "a")),
);

describe("whatever a client sends", () => {
  it("never gets a 5xx, always a well-formed answer, and the server stays up", async () => {
    await fc.assert(
      fc.asyncProperty(method, target, headers, body, async (m, path, hdrs, payload) => {
        const head = [`${m} ${path} HTTP/1.1`, "Host: 127.0.0.1", ...Object.entries(hdrs).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${payload.length}`, "Connection: close"];
        const reply = await sendRaw(port, Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), payload]));
        if (m === "HEAD") {
          expect(reply.status).toBeLessThan(500);
          return;
        }
        expectWellFormed(reply);
      }),
      { numRuns: 300 },
    );
    expect((await send(port, "GET", "/api/status")).status).toBe(200);
  });
});

describe("hostile requests", () => {
  it("answers oversized headers with a JSON 431", async () => {
    const reply = await sendRaw(port, `GET /api/status HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(reply.status).toBe(431);
    expectWellFormed(reply);
  });

  it("answers a request line that is not HTTP with a JSON 400", async () => {
    const reply = await sendRaw(port, "\u0000\u0001 garbage\r\n\r\n");
    expect(reply.status).toBe(400);
    expectWellFormed(reply);
  });

  it("waits for a body that arrives slowly", async () => {
    const payload = JSON.stringify({ name: "slow" });
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", async () => {
        socket.write(
          `POST /api/v1/projects/p1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`,
        );
        for (const char of payload) {
          socket.write(char);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      });
      let text = "";
      socket.on("data", (data) => (text += data));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('"name":"slow"');
  });

  it("shrugs off a client that aborts mid-body", async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(
          `POST /api/v1/projects/p1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
        );
        setImmediate(() => {
          socket.resetAndDestroy();
          resolve();
        });
      });
    });
    await eventually(() => running.handler.inFlight === 0, "aborted request released");
    expect((await send(port, "GET", "/api/status")).status).toBe(200);
  });
});
