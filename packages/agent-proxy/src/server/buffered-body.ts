import type { IncomingMessage } from "node:http";
import type { BodyBudget } from "./body-budget.js";
import { watchBodyIdle } from "./request-deadlines.js";

/**
 * A request body read whole, for placeholder substitution: counted against the request's own cap
 * and against the budget every session shares, and given up when it sits idle. The returned
 * `release` gives its bytes back to the budget (once the upstream request is over).
 */
export class BodyTooLargeError extends Error {}
export class BodyBudgetError extends Error {}
export class BodyIdleError extends Error {}

export interface BodyLimits {
  readonly maxBytes: number;
  readonly idleMs: number;
  readonly budget: BodyBudget;
}

// Listeners rather than async iteration: giving up on an iterator destroys the request, and the refusal with it.
export function readBody(req: IncomingMessage, { maxBytes, idleMs, budget }: BodyLimits): Promise<{ body: Buffer; release(): void }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      budget.release(size);
    };
    const fail = (error: Error) => {
      req.off("data", onData);
      req.off("end", onEnd);
      stopIdle();
      chunks.length = 0;
      release();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > maxBytes) return fail(new BodyTooLargeError(`A body in which credentials are substituted may be at most ${maxBytes} bytes`));
      if (!budget.tryReserve(chunk.length)) return fail(new BodyBudgetError("The proxy is holding as many request bodies as it may; try again shortly"));
      size += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      stopIdle();
      resolve({ body: Buffer.concat(chunks), release });
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", fail);
    req.once("close", () => {
      if (!req.complete) fail(new BodyIdleError("The agent went away before its body was complete"));
    });
    const stopIdle = watchBodyIdle(req, idleMs, () => fail(new BodyIdleError(`The request body sat idle for more than ${idleMs} ms`)));
  });
}
