import type { ServerResponse } from "node:http";
import type { Delivery, ProjectEvent, ProjectEventSubscription } from "@strongroom/core";
import { STATUS_OF } from "./status.js";

/** One Server-Sent Events frame: written as `id:`, `event:` and `data:` lines. */
export interface SseFrame {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

const serialize = (source: ProjectEvent, payload: ProjectEvent["payload"]) =>
  JSON.stringify({ projectType: source.projectType, data: { eventType: source.eventType, payload } });

// Most subscribers receive an event whole; its text is then built once, not once per subscriber.
const wholeEventData = new WeakMap<ProjectEvent, string>();

function eventData(source: ProjectEvent, payload: ProjectEvent["payload"]): string {
  if (payload !== source.payload) return serialize(source, payload);
  let data = wholeEventData.get(source);
  if (data === undefined) {
    data = serialize(source, payload);
    wholeEventData.set(source, data);
  }
  return data;
}

/**
 * `id: <n>`, `event: <eventType>`, `data: {"projectType", "data": {"eventType", "payload"}}`
 * (SPEC.md "Events"); a failed subscription's last frame is `event: error` with an error body.
 */
export function toSseFrame(delivery: Delivery): SseFrame {
  if (delivery.kind === "error") {
    const { code, message } = delivery.error;
    return { event: "error", data: JSON.stringify({ statusCode: STATUS_OF[code] ?? 500, error: code, message }) };
  }
  return { id: delivery.id, event: delivery.source.eventType, data: eventData(delivery.source, delivery.payload) };
}

/** Line breaks would let a value end its field early and smuggle in fields of its own. */
const singleLine = (value: string) => value.replace(/[\r\n]+/g, " ");

/** One Server-Sent Events frame: `id:`, `event:`, one `data:` line per line of data, blank line. */
export function formatSseFrame(frame: SseFrame): string {
  let out = "";
  if (frame.id !== undefined) out += `id: ${singleLine(frame.id)}\n`;
  out += `event: ${singleLine(frame.event)}\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Writes a frame; false when the connection is gone or its buffer is full. */
export function writeSseFrame(res: ServerResponse, frame: SseFrame): boolean {
  if (res.destroyed || res.writableEnded) return false;
  return res.write(formatSseFrame(frame));
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

/** Frames to stream, and how to stop their producer. */
export interface SseSource {
  readonly frames: AsyncIterable<SseFrame>;
  cancel(): void;
}

/** A project event subscription as frames: each delivery framed as it is taken. */
export function subscriptionFrames(result: unknown): SseSource {
  const subscription = result as Partial<ProjectEventSubscription> | null;
  if (typeof subscription?.cancel !== "function" || typeof subscription.deliveries?.[Symbol.asyncIterator] !== "function") {
    throw new Error("the operation did not return an event subscription");
  }
  const { deliveries } = subscription;
  return {
    frames: {
      async *[Symbol.asyncIterator]() {
        for await (const delivery of deliveries) yield toSseFrame(delivery);
      },
    },
    cancel: () => subscription.cancel!(),
  };
}

export interface SseOptions {
  pingIntervalMs: number;
  /** Output the client has not yet taken; past this the client is too slow and is dropped. */
  maxBufferedBytes: number;
  /** A stream that failed after its headers went out; the client just sees the stream end. */
  onStreamError(thrown: unknown): void;
  /** Ends the stream from the server's side (shutdown), with `SHUTDOWN_FRAME` as its last frame. */
  signal?: AbortSignal;
}

/** The last frame of a stream the server ends for a drain: the client reconnects to another node. */
export const SHUTDOWN_FRAME: SseFrame = {
  event: "error",
  data: JSON.stringify({ statusCode: STATUS_OF.ServiceUnavailable, error: "ServiceUnavailable", message: "The server is shutting down; reconnect" }),
};

/**
 * Pipes a frame source to the response until either side ends it. Resolves once everything it
 * set up (ping timer, listeners, the source itself) has been released.
 */
export async function pipeEventStream(res: ServerResponse, status: number, source: SseSource, options: SseOptions): Promise<void> {
  if (res.destroyed) {
    // The client left while the operation was still setting the stream up.
    source.cancel();
    return;
  }
  res.writeHead(status, SSE_HEADERS);
  res.flushHeaders();

  let open = true;
  const stop = () => {
    if (!open) return;
    open = false;
    clearInterval(ping);
    res.off("close", stop);
    options.signal?.removeEventListener("abort", endFromServer);
    source.cancel();
  };
  const endFromServer = () => {
    stop();
    writeSseFrame(res, SHUTDOWN_FRAME);
    res.end();
  };
  const send = (frame: SseFrame) => {
    if (!open) return;
    writeSseFrame(res, frame);
    if (res.writableLength > options.maxBufferedBytes) {
      // A client that stops reading must not make the server hold its events without limit.
      stop();
      res.destroy();
    }
  };
  const ping = setInterval(() => send({ event: "ping", data: "" }), options.pingIntervalMs);
  res.on("close", stop);
  if (options.signal?.aborted) endFromServer();
  else options.signal?.addEventListener("abort", endFromServer);

  try {
    for await (const frame of source.frames) {
      if (!open) break;
      send(frame);
    }
  } catch (thrown) {
    if (open) options.onStreamError(thrown);
  } finally {
    const endedByServer = open;
    stop();
    if (endedByServer) res.end();
  }
}
