import { ControlPlaneUnavailableError, ProxyRevokedError, type ControlPlane, type ProxyState } from "./control-plane.js";

/**
 * Every `pollInterval` seconds: a heartbeat, then the proxy's config, sessions and services. A
 * failed poll keeps the last good state (the proxy goes on serving) and is retried at the next
 * tick; a 401 means the proxy was revoked and ends the loop for good.
 */
export interface PollerEvents {
  refreshed(state: ProxyState): void;
  unavailable(error: Error): void;
  revoked(error: ProxyRevokedError): void;
}

export class ConfigPoller {
  readonly #controlPlane: ControlPlane;
  readonly #events: PollerEvents;
  #state: ProxyState;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: { startedAt: number; done: Promise<boolean> } | undefined;
  #stopped = false;

  constructor(controlPlane: ControlPlane, initial: ProxyState, events: PollerEvents) {
    this.#controlPlane = controlPlane;
    this.#state = initial;
    this.#events = events;
  }

  /** The first state must come from the server: without sessions the proxy could serve no one. */
  static async start(controlPlane: ControlPlane, events: PollerEvents): Promise<ConfigPoller> {
    const poller = new ConfigPoller(controlPlane, await controlPlane.state(), events);
    poller.#schedule();
    return poller;
  }

  get state(): ProxyState {
    return this.#state;
  }

  /**
   * Polls now and restarts the interval. A poll already running is shared when it started at or
   * after `notBefore` (performance.now()); otherwise the next poll starts once it is done.
   * Resolves to whether it brought a fresh state (false: the server could not be reached).
   */
  refresh(notBefore = -Infinity): Promise<boolean> {
    const running = this.#inFlight;
    if (running) return running.startedAt >= notBefore ? running.done : running.done.then(() => this.refresh(notBefore));
    const startedAt = performance.now();
    const done = this.#poll().finally(() => {
      this.#inFlight = undefined;
      this.#schedule();
    });
    this.#inFlight = { startedAt, done };
    return done;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  async #poll(): Promise<boolean> {
    if (this.#stopped) return false;
    try {
      await this.#controlPlane.heartbeat();
      const state = await this.#controlPlane.state();
      if (this.#stopped) return false;
      this.#state = state;
      this.#events.refreshed(state);
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

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.refresh(), this.#state.config.pollInterval * 1000);
    // The listening server keeps the process alive; the poll timer alone should not.
    this.#timer.unref();
  }
}
