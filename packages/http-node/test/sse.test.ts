import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatSseFrame } from "@strongroom/http-node";
import { expectErrorBody } from "./helpers/error-shape.js";
import { USER_TOKEN } from "./helpers/fake-strongroom.js";
import { eventually, startTestServer, type TestServer } from "./helpers/http.js";

let api: TestServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

interface OpenStream {
  res: IncomingMessage;
  req: ClientRequest;
  /** Everything received so far. */
  text(): string;
}

function openStream(server: TestServer, path = "/api/v1/projects/p1/events", body: unknown = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    let received = "";
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method: "POST",
        path,
        agent: false,
        headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (received += chunk));
        res.on("error", () => {});
        resolve({ res, req, text: () => received });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("event streams", () => {
  it("sends the stream headers at once, before any event", async () => {
    api = await startTestServer();
    const stream = await openStream(api);
    expect(stream.res.statusCode).toBe(200);
    expect(stream.res.headers).toMatchObject({
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    expect(stream.res.headers["x-request-id"]).toMatch(/^req-/);
    stream.req.destroy();
  });

  it("writes each event as id/event/data lines and a blank line", async () => {
    api = await startTestServer();
    const stream = await openStream(api);
    const channel = api.fake.streams[0];
    channel.push({ id: "1", event: "secret:create", data: '{"projectType":"secret-manager"}' });
    channel.push({ event: "note", data: "two\nlines" });
    await eventually(() => stream.text().includes("two"), "both frames");
    expect(stream.text()).toBe('id: 1\nevent: secret:create\ndata: {"projectType":"secret-manager"}\n\n' + "event: note\ndata: two\ndata: lines\n\n");
    channel.end();
    await new Promise((resolve) => stream.res.on("end", resolve));
  });

  it("answers errors raised before the stream starts as JSON error bodies", async () => {
    api = await startTestServer();
    expectErrorBody(await api.send("POST", "/api/v1/projects/p1/events", { json: {} }), 401, "UnauthorizedError");
    expectErrorBody(await api.send("POST", "/api/v1/firehose", { token: USER_TOKEN, json: { size: "big" } }), 422, "ValidationFailure");
  });

  it("sends `event: ping` at the configured interval", async () => {
    api = await startTestServer({ ssePingIntervalMs: 20 });
    const stream = await openStream(api);
    await eventually(() => (stream.text().match(/event: ping\n/g) ?? []).length >= 2, "two pings");
    expect(stream.text()).toMatch(/^(event: ping\ndata: \n\n)+/);
    stream.req.destroy();
  });

  it("cancels the stream and releases its timer and listeners when the client goes away", async () => {
    api = await startTestServer();
    // Only intervals are faked: exactly the stream's ping timer is counted, nothing of node:http's.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const stream = await openStream(api);
      const channel = api.fake.streams[0];
      await eventually(() => api!.handler.openStreams === 1, "stream open");
      expect(vi.getTimerCount()).toBe(1);

      stream.req.destroy();
      await channel.cancelled;
      await eventually(() => channel.finished && api!.handler.openStreams === 0 && api!.handler.inFlight === 0, "stream released");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("cancels a stream whose client left before it started", async () => {
    api = await startTestServer();
    const gate = api.fake.holdRequests();
    const socket = connect(api.port, "127.0.0.1");
    socket.write(`POST /api/v1/projects/p1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\nContent-Length: 0\r\n\r\n`);
    await gate.entered;
    socket.destroy();
    await eventually(() => api!.handler.inFlight === 0, "request closed");
    gate.release();
    await eventually(() => api!.fake.streams.length === 1, "stream created");
    await api.fake.streams[0].cancelled;
    expect(api.handler.openStreams).toBe(0);
  });

  it("disconnects a client that stops reading once its buffer passes the bound", async () => {
    api = await startTestServer({ sseMaxBufferedBytes: 256 * 1024 });
    const socket = connect(api.port, "127.0.0.1");
    const body = JSON.stringify({ size: 64 * 1024 });
    socket.write(
      `POST /api/v1/firehose HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    // Never read: the server's output piles up in the kernel buffers and then in its own.
    socket.pause();
    await eventually(() => api!.fake.streams.length === 1, "stream opened");
    const channel = api.fake.streams[0];
    await channel.cancelled;
    await eventually(() => channel.finished && api!.handler.openStreams === 0, "stream released", 15_000);
    socket.destroy();
    // The server is still answering.
    expect((await api.send("GET", "/api/status")).status).toBe(200);
  });

  it("refuses new streams with 503 and Retry-After while open ones hold the memory budget", async () => {
    const budget = 1024 * 1024;
    api = await startTestServer({ sseMaxBufferedBytes: 64 * budget, sseMemoryBudgetBytes: budget });
    const socket = connect(api.port, "127.0.0.1");
    socket.write(`POST /api/v1/projects/p1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USER_TOKEN}\r\nContent-Length: 0\r\n\r\n`);
    // Never read: its output piles up past the kernel's buffers into the server's.
    socket.pause();
    await eventually(() => api!.fake.streams.length === 1, "stream opened");
    const channel = api.fake.streams[0];
    const frame = { event: "bulk", data: "x".repeat(64 * 1024) };
    await eventually(
      () => {
        channel.push(frame);
        return api!.handler.streamMemoryBytes > budget;
      },
      "the budget used",
      15_000,
    );
    const refused = await api.send("POST", "/api/v1/projects/p1/events", { token: USER_TOKEN, json: {} });
    expectErrorBody(refused, 503, "ServiceUnavailable");
    expect(refused.headers["retry-after"]).toBe("5");
    // The stalled stream was not dropped for it: only its own bound does that.
    expect(channel.isCancelled).toBe(false);

    socket.destroy();
    await eventually(() => api!.handler.openStreams === 0, "stream released");
    await new Promise((resolve) => setTimeout(resolve, 60));
    const again = await openStream(api);
    expect(again.res.statusCode).toBe(200);
    again.req.destroy();
  });

  it("ends every open stream on shutdown, with event: error, however many there are", async () => {
    api = await startTestServer();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const streams = await Promise.all(Array.from({ length: 12 }, () => openStream(api!)));
      const ended = streams.map((stream) => new Promise((resolve) => stream.res.on("end", resolve)));
      api.handler.shutdown();
      await Promise.all(ended);
      expect(api.fake.streams.every((channel) => channel.isCancelled)).toBe(true);
      for (const stream of streams) expect(stream.text()).toMatch(/event: error\ndata: \{"statusCode":503,"error":"ServiceUnavailable",.*\}\n\n$/);
      // A drain refuses new streams.
      expectErrorBody(await api.send("POST", "/api/v1/projects/p1/events", { token: USER_TOKEN, json: {} }), 503, "ServiceUnavailable");
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("formatSseFrame", () => {
  it("keeps ids and event names on one line so they cannot inject fields", () => {
    expect(formatSseFrame({ id: "1\nevent: evil", event: "a\r\nb", data: "x" })).toBe("id: 1 event: evil\nevent: a b\ndata: x\n\n");
  });

  it("splits data on every kind of line break", () => {
    expect(formatSseFrame({ event: "e", data: "a\r\nb\rc\nd" })).toBe("event: e\ndata: a\ndata: b\ndata: c\ndata: d\n\n");
  });
});
