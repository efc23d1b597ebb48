/**
 * A denied host is still intercepted so that the agent reads the proxy's 403 JSON rather than a
 * failed CONNECT; but every new host intercepted costs a certificate (a key and a signature). So
 * only `limit` new denied hosts per session and window get that answer; past it the CONNECT itself
 * is refused with 403 until the window moves on. A host admitted in the window stays admitted.
 */
export interface DeniedHostWindow {
  /** When each host was first admitted, oldest first. */
  readonly admitted: ReadonlyMap<string, number>;
}

export interface DeniedHostVerdict {
  readonly intercept: boolean;
  readonly window: DeniedHostWindow;
}

export function admitDeniedHost(window: DeniedHostWindow, host: string, now: number, limit: number, windowMs: number): DeniedHostVerdict {
  const admitted = new Map<string, number>();
  for (const [name, at] of window.admitted) if (now - at < windowMs) admitted.set(name, at);
  if (admitted.has(host)) return { intercept: true, window: { admitted } };
  if (admitted.size >= limit) return { intercept: false, window: { admitted } };
  admitted.set(host, now);
  return { intercept: true, window: { admitted } };
}

export const DENIED_HOST_WINDOW_MS = 60_000;

/** The windows of every session, dropped with the session. */
export class DeniedHosts {
  readonly #limit: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, DeniedHostWindow>();

  constructor(limit: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  intercept(sessionId: string, host: string): boolean {
    const verdict = admitDeniedHost(this.#windows.get(sessionId) ?? { admitted: new Map() }, host, this.#now(), this.#limit, DENIED_HOST_WINDOW_MS);
    if (verdict.window.admitted.size > 0) this.#windows.set(sessionId, verdict.window);
    else this.#windows.delete(sessionId);
    return verdict.intercept;
  }

  forgetAllBut(live: ReadonlySet<string>): void {
    for (const sessionId of [...this.#windows.keys()]) if (!live.has(sessionId)) this.#windows.delete(sessionId);
  }
}
