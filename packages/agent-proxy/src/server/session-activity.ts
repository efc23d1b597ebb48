/**
 * What each agent session has open right now: its CONNECT tunnels and its requests in progress.
 * Both are capped per session, so one session cannot take the proxy's sockets and upstream
 * connections from every other agent. When a session stops being live (revoked, expired, its
 * grant withdrawn) its requests in progress are cut rather than left to run on; an idle tunnel
 * stays open and answers its next request with 403.
 */
export interface SessionLimits {
  maxTunnels: number;
  maxRequests: number;
}

/** Ends one open thing at once: destroys its sockets. */
export type Cut = () => void;

interface Activity {
  readonly tunnels: Set<Cut>;
  readonly requests: Set<Cut>;
}

export class SessionActivity {
  readonly #limits: SessionLimits;
  readonly #bySession = new Map<string, Activity>();

  constructor(limits: SessionLimits) {
    this.#limits = limits;
  }

  /** Registers a tunnel, or returns null when the session already has its maximum open. */
  openTunnel(sessionId: string): (() => void) | null {
    return this.#add(sessionId, "tunnels", this.#limits.maxTunnels, () => undefined);
  }

  /** Registers a request in progress, or returns null when the session already has its maximum. */
  beginRequest(sessionId: string, cut: Cut): (() => void) | null {
    return this.#add(sessionId, "requests", this.#limits.maxRequests, cut);
  }

  counts(sessionId: string): { tunnels: number; requests: number } {
    const activity = this.#bySession.get(sessionId);
    return { tunnels: activity?.tunnels.size ?? 0, requests: activity?.requests.size ?? 0 };
  }

  /** Cuts the requests of the sessions not in `live` and forgets those sessions; returns how many requests were cut. */
  cutAllBut(live: ReadonlySet<string>): number {
    let cut = 0;
    for (const [sessionId, activity] of [...this.#bySession]) {
      if (live.has(sessionId)) continue;
      this.#bySession.delete(sessionId);
      for (const end of activity.requests) {
        cut++;
        end();
      }
    }
    return cut;
  }

  #add(sessionId: string, kind: keyof Activity, max: number, cut: Cut): (() => void) | null {
    let activity = this.#bySession.get(sessionId);
    if ((activity?.[kind].size ?? 0) >= max) return null;
    if (!activity) {
      activity = { tunnels: new Set(), requests: new Set() };
      this.#bySession.set(sessionId, activity);
    }
    // A distinct wrapper per registration, so the same function registered twice counts twice.
    const entry: Cut = () => cut();
    const set = activity[kind];
    set.add(entry);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      set.delete(entry);
      const current = this.#bySession.get(sessionId);
      if (current && current.tunnels.size === 0 && current.requests.size === 0) this.#bySession.delete(sessionId);
    };
  }
}
