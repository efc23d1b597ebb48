import type { IncomingMessage } from "node:http";
import type { Refusal } from "./refusals.js";

/**
 * Time bounds on what an agent sends, the same inside a tunnel as outside (DESIGN.md §11). Node's
 * own header and request timeouts only run for a server that listens, and the tunnels' HTTP
 * server never does: without these, a tunnel trickling header bytes or holding a body open would
 * keep its socket (and its buffered bytes) for as long as the agent liked.
 */

/** What a connection gets when its clock runs out, before it is closed. */
export const HEADER_TIMEOUT: Refusal = { status: 408, reason: "header-timeout", message: "The request headers did not arrive in time" };

/**
 * One connection's header clock: it runs while the connection waits for a request's headers (from
 * the moment it is handed over, and again whenever its last request is done), and `expire` runs
 * when they are not complete within `ms`. The owner closes the connection: with a 408 while it
 * waits for its first request, silently once it has served one (an idle kept-alive connection is
 * closed the way a keep-alive timeout closes it, with no answer a client could take for another's).
 */
export class HeaderDeadline {
  readonly #ms: number;
  readonly #expire: (served: boolean) => void;
  #served = false;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #stopped = false;

  constructor(ms: number, expire: (served: boolean) => void) {
    this.#ms = ms;
    this.#expire = expire;
    this.#arm();
  }

  /** Headers arrived; the clock starts again once this request's response has closed. */
  requestStarted(response: { once(event: "close", listener: () => void): unknown }): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#inFlight++;
    this.#served = true;
    response.once("close", () => {
      this.#inFlight--;
      if (this.#inFlight === 0) this.#arm();
    });
  }

  /** The connection closed, or is no longer waiting for headers of this kind (it became a tunnel). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#stopped) this.#expire(this.#served);
    }, this.#ms);
    this.#timer.unref();
  }
}

/**
 * A request body may sit idle at most `ms` while the proxy is reading it. Call it once the proxy
 * consumes the body (a `data` listener would otherwise start the flow itself). Time the proxy does
 * not read (an upstream that pushes back pauses the stream) does not count against the agent.
 * Returns a function that stops watching.
 */
export function watchBodyIdle(req: IncomingMessage, ms: number, idle: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(check, ms);
    timer.unref();
  };
  const check = () => {
    if (req.complete || req.destroyed) return stop();
    if (req.readableFlowing !== true) return arm();
    stop();
    idle();
  };
  const stop = () => {
    clearTimeout(timer);
    req.off("data", arm);
  };
  req.on("data", arm);
  req.once("end", stop);
  req.once("close", stop);
  arm();
  return stop;
}
