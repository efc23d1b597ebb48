import type { IncomingMessage } from "node:http";
import { BadRequestError, PayloadTooLargeError } from "@strongroom/core";

/** The client went away before its body arrived: there is nobody left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super("client closed the connection before the request body was read");
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and parses a JSON request body of at most `maxBytes`. An empty body is `{}`. Stops reading
 * the moment the limit is passed, so an oversized upload costs at most `maxBytes` of memory.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw new PayloadTooLargeError();
  const raw = await collect(req, maxBytes);
  if (raw.length === 0) return {};
  if (!isJsonContentType(req.headers["content-type"])) {
    throw new BadRequestError("Content-Type must be application/json");
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new BadRequestError("Request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError("Request body is not valid JSON");
  }
}

/** A missing Content-Type is read as JSON (curl and many SDKs omit it); anything else must say JSON. */
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return true;
  const type = header.split(";")[0].trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  // A host server's middleware may have consumed the body already; its events are then gone.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new ClientGoneError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        reject(new PayloadTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      reject(new ClientGoneError());
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onGone);
    req.on("close", onGone);
  });
}
