import type { ServerResponse } from "node:http";
import type { EventStream, SseFrame } from "./routes/route.js";

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

export interface SseOptions {
  pingIntervalMs: number;
  /** Output the client has not yet taken; past this the client is too slow and is dropped. */
  maxBufferedBytes: number;
  /** A stream that failed after its headers went out; the client just sees the stream end. */
  onStreamError(thrown: unknown): void;
  /** Ends the stream from the server's side (shutdown). */
  signal?: AbortSignal;
}

/**
 * Pipes an operation's event stream to the response until either side ends it. Resolves once
 * everything it set up (ping timer, listeners, the stream itself) has been released.
 */
export async function pipeEventStream(
  res: ServerResponse,
  status: number,
  source: EventStream,
  options: SseOptions,
): Promise<void> {
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
    for await (const frame of source.stream) {
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
