import { ControlPlaneUnavailableError, ProxyRevokedError, type ControlPlane, type ProxyState } from "./control-plane.js";

/**
 * Every `pollInterval` seconds, counted from the start of the previous poll: a heartbeat, then the
 * proxy's config, sessions and services (a "full" poll; the proxy then drops its cached decisions).
 * Between them, a token the proxy does not know may ask for the sessions alone (`pollSessions`):
 * such a poll neither clears the decisions nor moves the schedule, so unknown tokens can neither
 * make the proxy ask the server for every decision again nor postpone the poll that brings
 * revocations. A failed poll keeps the last good state (the proxy goes on serving) and is retried
 * at the next tick; a 401 means the proxy was revoked and ends the loop for good.
 */
export type PollScope = "full" | "sessions";

export interface PollerEvents {
  refreshed(state: ProxyState, scope: PollScope): void;
  unavailable(error: Error): void;
  revoked(error: ProxyRevokedError): void;
}

interface Running {
  readonly startedAt: number;
  readonly done: Promise<boolean>;
}

export class ConfigPoller {
  readonly #controlPlane: Pick<ControlPlane, "heartbeat" | "state">;
  readonly #events: PollerEvents;
  readonly #now: () => number;
  #state: ProxyState;
  /** When the poll whose state is applied started: an older answer arriving later must not undo it. */
  #appliedStartedAt = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #full: Running | undefined;
  #sessions: Running | undefined;
  #stopped = false;

  constructor(controlPlane: Pick<ControlPlane, "heartbeat" | "state">, initial: ProxyState, events: PollerEvents, now: () => number = () => performance.now()) {
    this.#controlPlane = controlPlane;
    this.#state = initial;
    this.#events = events;
    this.#now = now;
  }

  /** The first state must come from the server: without sessions the proxy could serve no one. */
  static async start(controlPlane: Pick<ControlPlane, "heartbeat" | "state">, events: PollerEvents, now?: () => number): Promise<ConfigPoller> {
    const poller = new ConfigPoller(controlPlane, await controlPlane.state(), events, now);
    poller.#schedule(poller.#now());
    return poller;
  }

  get state(): ProxyState {
    return this.#state;
  }

  /**
   * A full poll now (SIGHUP, `refresh()`); the next scheduled one follows `pollInterval` after it.
   * One already running is shared. Resolves to whether it brought a fresh state.
   */
  refresh(): Promise<boolean> {
    if (this.#full) return this.#full.done;
    const startedAt = this.#now();
    const done = this.#poll("full", startedAt).finally(() => {
      this.#full = undefined;
      this.#schedule(startedAt);
    });
    this.#full = { startedAt, done };
    return done;
  }

  /**
   * The sessions, for a token the proxy does not know. A poll (of either kind) already running is
   * shared when it started at or after `notBefore` (this clock); otherwise a new one starts once
   * it is done, since it may have read the sessions before the token's session existed.
   */
  pollSessions(notBefore = -Infinity): Promise<boolean> {
    if (this.#full && this.#full.startedAt >= notBefore) return this.#full.done;
    const running = this.#sessions;
    if (running) return running.startedAt >= notBefore ? running.done : running.done.then(() => this.pollSessions(notBefore));
    const startedAt = this.#now();
    const done = this.#poll("sessions", startedAt).finally(() => (this.#sessions = undefined));
    this.#sessions = { startedAt, done };
    return done;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #poll(scope: PollScope, startedAt: number): Promise<boolean> {
    if (this.#stopped) return false;
    try {
      if (scope === "full") await this.#controlPlane.heartbeat();
      const state = await this.#controlPlane.state();
      if (this.#stopped) return false;
      if (startedAt >= this.#appliedStartedAt) {
        this.#state = state;
        this.#appliedStartedAt = startedAt;
      }
      this.#events.refreshed(this.#state, scope);
      return true;
    } catch (error) {
      if (this.#stopped) return false;
      if (error instanceof ProxyRevokedError) {
        this.stop();
        this.#events.revoked(error);
      } else {
        this.#events.unavailable(error instanceof Error ? error : new ControlPlaneUnavailableError(String(error)));
      }
      return false;
    }
  }

  #schedule(lastStartedAt: number): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    const wait = Math.max(0, lastStartedAt + this.#state.config.pollInterval * 1000 - this.#now());
    this.#timer = setTimeout(() => void this.refresh(), wait);
    // The listening server keeps the process alive; the poll timer alone should not.
    this.#timer.unref();
  }
}
