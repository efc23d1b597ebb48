import { createHash } from "node:crypto";
import type { ProxyState } from "./control-plane.js";

/**
 * The agent sessions this proxy honours, from its last good config. The server sends token hashes
 * only; a presented token is hashed and looked up. Expiry is also checked here, so a session ends
 * on time even while the server cannot be reached.
 */
export interface LiveSession {
  readonly id: string;
  readonly bundleId: string;
}

interface Entry extends LiveSession {
  readonly expiresAt: number;
}

export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex");

/**
 * A token as an agent presented it, hashed once: every request in a tunnel presents the same
 * token, and each is still looked up in the current table (hash only; the value goes to the
 * server when a decision is asked for).
 */
export interface PresentedToken {
  readonly value: string;
  readonly hash: string;
}

export const presentToken = (value: string): PresentedToken => ({ value, hash: tokenHash(value) });

export class SessionTable {
  readonly #byHash: ReadonlyMap<string, Entry>;

  constructor(sessions: ProxyState["sessions"]) {
    this.#byHash = new Map(sessions.map((s) => [s.tokenHash, { id: s.id, bundleId: s.bundleId, expiresAt: Date.parse(s.expiresAt) }]));
  }

  lookup(hash: string, now: number): LiveSession | null {
    const entry = this.#byHash.get(hash);
    return entry && entry.expiresAt > now ? entry : null;
  }
}
