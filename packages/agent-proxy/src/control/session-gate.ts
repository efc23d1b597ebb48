import { presentToken, SessionTable, type LiveSession, type PresentedToken } from "./session-table.js";
import type { ProxyState } from "./control-plane.js";

/**
 * Which session a presented token opens. A session opened since the last poll is not in the table
 * yet, so a token the table does not know makes the proxy poll at once instead of refusing it
 * until the next `pollInterval`. Unknown tokens cannot drive the server: such polls are spaced
 * at least `minGapMs` apart (a request waits for the next one rather than being refused), and a
 * token still unknown after a successful poll is remembered as refused: tokens never come back.
 */
export class SessionGate {
  /** Polls the server; a poll already running that started before `notBefore` (performance.now()) does not count. */
  readonly #poll: (notBefore: number) => Promise<boolean>;
  readonly #minGapMs: number;
  readonly #refusedCapacity: number;
  #table = new SessionTable([]);
  readonly #refused = new Set<string>();
  #lastPollAt = -Infinity;
  #nextPoll: Promise<boolean> | undefined;

  constructor(poll: (notBefore: number) => Promise<boolean>, options: { minGapMs?: number; refusedCapacity?: number } = {}) {
    this.#poll = poll;
    this.#minGapMs = options.minGapMs ?? 1000;
    this.#refusedCapacity = options.refusedCapacity ?? 10_000;
  }

  update(sessions: ProxyState["sessions"]): void {
    this.#table = new SessionTable(sessions);
  }

  async session(token: PresentedToken | string): Promise<LiveSession | null> {
    const { hash } = typeof token === "string" ? presentToken(token) : token;
    const found = this.#table.lookup(hash, Date.now());
    if (found || this.#refused.has(hash)) return found;
    const fresh = await this.#pollSoon();
    const after = this.#table.lookup(hash, Date.now());
    // Only a poll that reached the server proves the token unknown.
    if (!after && fresh) this.#remember(hash);
    return after;
  }

  /**
   * Misses share a pending poll until it starts; a miss after that waits for the next one, since
   * the running poll may have read the sessions before this token's session existed.
   */
  #pollSoon(): Promise<boolean> {
    if (this.#nextPoll) return this.#nextPoll;
    const wait = this.#lastPollAt + this.#minGapMs - performance.now();
    const next: Promise<boolean> = new Promise((resolve) => setTimeout(resolve, Math.max(0, wait))).then(() => {
      if (this.#nextPoll === next) this.#nextPoll = undefined;
      // Every miss sharing this poll happened before now, so no poll older than now will do.
      this.#lastPollAt = performance.now();
      return this.#poll(this.#lastPollAt);
    });
    this.#nextPoll = next;
    return next;
  }

  #remember(hash: string): void {
    if (this.#refused.size >= this.#refusedCapacity) this.#refused.delete(this.#refused.values().next().value!);
    this.#refused.add(hash);
  }
}
