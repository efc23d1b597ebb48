import type { ResolveDecision } from "./control-plane.js";

/**
 * The server's decisions, kept per (session, host, port, tls) until the proxy's next successful
 * config refresh: every request still goes through a decision, but only the first request for a
 * destination in a poll interval pays the round trip. A change on the server (a service disabled,
 * a credential rotated, a policy tightened) therefore reaches the proxy within one `pollInterval`,
 * as revoked sessions do. Broker decisions hold credential values: in memory only, never logged.
 *
 * Concurrent misses for one key share one call; a failed call is not kept.
 */
export class DecisionCache {
  readonly #capacity: number;
  #entries = new Map<string, Promise<ResolveDecision | null>>();

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, load: () => Promise<ResolveDecision | null>): Promise<ResolveDecision | null> {
    const cached = this.#entries.get(key);
    if (cached) return cached;
    const entries = this.#entries;
    const pending = load();
    // A session the server no longer knows is not kept: the next request asks again.
    pending.then(
      (decision) => decision === null && entries.get(key) === pending && entries.delete(key),
      () => entries.get(key) === pending && entries.delete(key),
    );
    if (entries.size >= this.#capacity) entries.delete(entries.keys().next().value!);
    entries.set(key, pending);
    return pending;
  }

  /** Calls still in flight land in the discarded map, so nothing fetched before a refresh outlives it. */
  clear(): void {
    this.#entries = new Map();
  }
}

export const decisionKey = (sessionId: string, host: string, port: number, tls: boolean): string => `${sessionId} ${host} ${port} ${tls ? "tls" : "plain"}`;
