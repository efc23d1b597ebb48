import type { ProjectAccess } from "../access/project-access.js";
import { RateLimitError, type StrongroomError } from "../kernel/errors.js";
import { requireRegistrations } from "./authorize.js";
import type { ProjectEvent } from "../kernel/bus.js";
import { asStrongroomError, toSubscribedEvent, type Delivery, type SubscribedEvent } from "./deliveries.js";
import { indexRegistrations, selectPayload, type PathMatcher, type Registration, type RegistrationIndex, type SecretEventPermission } from "./match.js";
import { permitsOf } from "./permits.js";
import { BoundedQueue } from "./queue.js";

/**
 * How often an open subscription's token and permissions are checked again when they may have
 * changed. DESIGN.md §6 asked for 60 s with revocations reaching streams within the 2 s access
 * bound; checking every second is what keeps that bound. They may have changed when this
 * instance wrote to an access-deciding table since the last check (the access caches' version
 * moved), or — on a store other nodes write to — at any time: there each check reads storage
 * (access at most RECHECK_FRESHNESS_MS old), since that is the only way to see another node's change.
 */
export const RECHECK_INTERVAL_MS = 1_000;

/**
 * The re-check that runs whatever the caches say: what changes with time alone (a token's
 * expiry, a temporary grant's end) is seen at least this often, as DESIGN.md §6 has it.
 */
export const FULL_RECHECK_INTERVAL_MS = 60_000;

/**
 * How old the access a re-check decides on may be. A change made at `t` is read by every re-check
 * that starts after `t + RECHECK_FRESHNESS_MS`; re-checks start at most RECHECK_INTERVAL_MS +
 * RECHECK_TICK_MS apart, so a stream ends within 500 + 1,000 + 500 ms = 2 s of the change.
 */
export const RECHECK_FRESHNESS_MS = 500;

/**
 * Events a subscription holds for a consumer that has not taken them yet. Over HTTP the adapter
 * takes each at once (its socket buffer has its own bound); an embedded consumer that stops
 * iterating is cut off here instead of growing memory.
 */
export const MAX_QUEUED_EVENTS = 1_000;

/**
 * A live subscription to a project's secret events. Consume one of its two views, not both:
 * `deliveries` for an adapter, `events` for code. Both end when the subscription does; breaking
 * out of either, or calling `cancel()`, releases it.
 */
export interface ProjectEventSubscription {
  /** Events, then — when the subscription failed — one error delivery that ends it. */
  readonly deliveries: AsyncIterable<Delivery>;
  /** Parsed events; iteration throws the error (401, 403, 429) that ended a failed subscription. */
  readonly events: AsyncIterable<SubscribedEvent>;
  /** Stops the subscription and releases everything it holds. Idempotent. */
  cancel(): void;
}

/** What a subscription needs from the registry that opened it. */
export interface SubscriptionHost {
  /** Compiles the registrations' path globs. */
  readonly pathMatcher: PathMatcher;
  /** The actor's token checked and its access reloaded (shared by the actor's streams on the project). */
  reloadAccess(subscription: ProjectSubscription): Promise<ProjectAccess>;
  /** Other nodes write to the store: access may change without `accessVersion` moving. */
  readonly shared: boolean;
  /** The access caches' version: it moves whenever this instance writes to an access-deciding table. */
  accessVersion(): number;
  release(subscription: ProjectSubscription): void;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

const tooSlow = () => new RateLimitError("The subscriber stopped reading its events and was disconnected");

export class ProjectSubscription implements ProjectEventSubscription {
  readonly deliveries: AsyncIterable<Delivery>;
  readonly events: AsyncIterable<SubscribedEvent>;
  private readonly queue = new BoundedQueue<Delivery>(MAX_QUEUED_EVENTS);
  private readonly registrations: RegistrationIndex;
  private permits: SecretEventPermission;
  private lastCheckAt: number;
  private lastFullCheckAt: number;
  private checkedVersion: number;
  private checking = false;
  // Events that arrive while a re-check runs wait for its outcome.
  private held: ProjectEvent[] = [];
  private nextId = 1;
  private open = true;

  constructor(
    private readonly host: SubscriptionHost,
    readonly projectId: string,
    private readonly registrationList: readonly Registration[],
    access: ProjectAccess,
    openedAt: number,
  ) {
    this.registrations = indexRegistrations(registrationList, host.pathMatcher);
    this.permits = permitsOf(access);
    this.lastCheckAt = openedAt;
    this.lastFullCheckAt = openedAt;
    this.checkedVersion = host.accessVersion();
    this.deliveries = this.view((delivery) => delivery);
    this.events = this.view((delivery) => {
      if (delivery.kind === "error") throw delivery.error;
      return toSubscribedEvent(delivery);
    });
  }

  /** An event of this subscription's project, `now` being the clock's time in milliseconds. */
  deliver(event: ProjectEvent, now: number): void {
    if (!this.open) return;
    if (this.checking || this.recheckDue(now)) {
      this.hold(event);
      this.recheck(now);
      return;
    }
    this.enqueue(event);
  }

  /** The timer's turn: re-checks when the last check is older than the interval. */
  recheckIfDue(now: number): void {
    if (this.open && this.recheckDue(now)) this.recheck(now);
  }

  /** Ends the subscription; its consumer receives `error` after what is already queued. */
  fail(error: StrongroomError): void {
    if (!this.open) return;
    this.close();
    this.queue.finish({ kind: "error", error });
  }

  /** Ends the subscription without an error; its consumer still receives what is queued. */
  end(): void {
    this.close();
    this.queue.finish();
  }

  cancel(): void {
    this.close();
    this.queue.drop();
  }

  private recheckDue(now: number): boolean {
    if (this.checking || now - this.lastCheckAt < RECHECK_INTERVAL_MS) return false;
    return this.host.shared || this.host.accessVersion() !== this.checkedVersion || now - this.lastFullCheckAt >= FULL_RECHECK_INTERVAL_MS;
  }

  private recheck(now: number): void {
    if (this.checking || !this.open) return;
    this.checking = true;
    this.lastCheckAt = now;
    this.lastFullCheckAt = now;
    // Taken before the reload: a change committed while it runs moves the version again.
    this.checkedVersion = this.host.accessVersion();
    this.host.reloadAccess(this).then(
      (access) => {
        this.checking = false;
        if (!this.open) return;
        try {
          requireRegistrations(access, this.registrationList);
        } catch (thrown) {
          this.fail(asStrongroomError(thrown));
          return;
        }
        this.permits = permitsOf(access);
        const held = this.held;
        this.held = [];
        for (const event of held) this.enqueue(event);
      },
      (thrown: unknown) => {
        this.checking = false;
        this.fail(asStrongroomError(thrown));
      },
    );
  }

  private hold(event: ProjectEvent): void {
    if (this.held.length >= MAX_QUEUED_EVENTS) this.fail(tooSlow());
    else this.held.push(event);
  }

  private enqueue(event: ProjectEvent): void {
    const payload = selectPayload(event, this.registrations, this.permits);
    if (payload === undefined) return;
    if (!this.queue.push({ kind: "event", id: String(this.nextId++), source: event, payload })) this.fail(tooSlow());
  }

  private close(): void {
    if (!this.open) return;
    this.open = false;
    this.held = [];
    this.host.release(this);
  }

  private view<T>(convert: (delivery: Delivery) => T): AsyncIterable<T> {
    const step = (delivery: Delivery | undefined): IteratorResult<T, undefined> => {
      if (delivery === undefined) {
        this.cancel();
        return DONE;
      }
      return { done: false, value: convert(delivery) };
    };
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => this.queue.take(step),
        return: async (): Promise<IteratorResult<T, undefined>> => {
          this.cancel();
          return DONE;
        },
      }),
    };
  }
}
