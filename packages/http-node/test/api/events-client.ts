import { request, type IncomingHttpHeaders } from "node:http";

/** One parsed Server-Sent Events frame. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** An open `POST /api/v1/events/subscribe/project-events` response, or the error body that refused it. */
export interface EventStreamClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The JSON error body when the subscription was refused. */
  body?: any;
  /** Everything received so far, raw. */
  text(): string;
  /** Every frame received so far, pings included. */
  readonly messages: SseMessage[];
  /** The next frame that is not a ping, in order. */
  next(limitMs?: number): Promise<SseMessage>;
  /** Frames (pings left out) until one satisfies `last`, which is included. */
  until(last: (message: SseMessage) => boolean, limitMs?: number): Promise<SseMessage[]>;
  /** Resolves when the server ends the stream or the connection closes. */
  readonly ended: Promise<void>;
  close(): void;
}

export const SUBSCRIBE_PATH = "/api/v1/events/subscribe/project-events";

function parseFrame(block: string): SseMessage | undefined {
  const message: SseMessage = { event: "message", data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "event") message.event = value;
    else if (field === "id") message.id = value;
  }
  message.data = data.join("\n");
  return block.trim() === "" ? undefined : message;
}

/** Opens an event stream over a plain node:http request and parses its frames as they arrive. */
export function openEventStream(baseUrl: string, token: string | undefined, body: unknown): Promise<EventStreamClient> {
  const url = new URL(SUBSCRIBE_PATH, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        res.setEncoding("utf8");
        let raw = "";
        let pending = "";
        let cursor = 0;
        const messages: SseMessage[] = [];
        let wake: (() => void) | undefined;
        let isEnded = false;
        const ended = new Promise<void>((done) => {
          const finish = () => {
            isEnded = true;
            wake?.();
            done();
          };
          res.on("end", finish);
          res.on("close", finish);
          res.on("error", () => undefined);
        });
        res.on("data", (chunk: string) => {
          raw += chunk;
          pending += chunk;
          let cut: number;
          while ((cut = pending.indexOf("\n\n")) >= 0) {
            const message = parseFrame(pending.slice(0, cut));
            pending = pending.slice(cut + 2);
            if (message) messages.push(message);
          }
          wake?.();
        });
        const next = async (limitMs = 10_000): Promise<SseMessage> => {
          const deadline = Date.now() + limitMs;
          for (;;) {
            while (cursor < messages.length) {
              const message = messages[cursor++];
              if (message.event !== "ping") return message;
            }
            if (isEnded) throw new Error(`the stream ended; received: ${raw}`);
            const left = deadline - Date.now();
            if (left <= 0) throw new Error(`no event within ${limitMs} ms; received: ${raw}`);
            await new Promise<void>((woken) => {
              const timer = setTimeout(woken, left);
              wake = () => {
                clearTimeout(timer);
                wake = undefined;
                woken();
              };
            });
          }
        };
        const client: EventStreamClient = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => raw,
          messages,
          next,
          async until(last, limitMs) {
            const seen: SseMessage[] = [];
            for (;;) {
              const message = await next(limitMs);
              seen.push(message);
              if (last(message)) return seen;
            }
          },
          ended,
          close: () => req.destroy(),
        };
        if (client.status === 200) return resolve(client);
        void ended.then(() => {
          client.body = raw ? JSON.parse(raw) : undefined;
          resolve(client);
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The `data` of an event frame, parsed. */
export const dataOf = (message: SseMessage) => JSON.parse(message.data);

/** `environment:path:key` for each payload item of an event frame. */
export function itemsOf(message: SseMessage): string[] {
  const payload = dataOf(message).data.payload;
  return (Array.isArray(payload) ? payload : [payload]).map((p: { environment: string; secretPath: string; secretKey?: string }) =>
    [p.environment, p.secretPath, p.secretKey].filter((part) => part !== undefined).join(":"),
  );
}
