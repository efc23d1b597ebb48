import type { ProjectAccess } from "../access/project-access.js";
import { actorPrincipal, type Actor } from "../kernel/actor.js";
import { defineCache, defineService, type Context } from "../kernel/context.js";
import { globPredicate, type ValuePredicate } from "../permissions/glob.js";
import { RateLimitError, ServiceUnavailableError, UnauthorizedError } from "../kernel/errors.js";
import { reloadAccess } from "./authorize.js";
import type { ProjectEvent } from "../kernel/bus.js";
import { asStrongroomError } from "./deliveries.js";
import type { Registration } from "./match.js";
import { ProjectSubscription, RECHECK_FRESHNESS_MS, type SubscriptionHost } from "./subscription.js";

/** DESIGN.md §6. Counted per node: each node of a multi-node deployment enforces it for its own streams. */
export const MAX_STREAMS_PER_ACTOR_AND_PROJECT = 5;

/** How often the timer looks for subscriptions whose re-check is due; the clock decides whether one is. */
export const RECHECK_TICK_MS = 500;

/**
 * Compiled path globs by pattern: most subscribers ask for the same few, and compiling each once
 * saves a regular expression per subscription. Patterns come from callers, so the cache is bounded.
 */
const pathGlobs = defineCache<ValuePredicate>({ name: "event-path-globs", capacity: 1_000 });

interface Owner {
  readonly actor: Actor;
  readonly limitKey: string;
}

/**
 * The open subscriptions of one Strongroom instance. It listens on the bus only while a
 * subscription is open, with one listener that hands each event to the subscriptions of its
 * project; one timer drives the periodic re-checks.
 */
export class SubscriptionRegistry implements SubscriptionHost {
  private readonly byProject = new Map<string, Set<ProjectSubscription>>();
  private readonly owners = new Map<ProjectSubscription, Owner>();
  private readonly streamCounts = new Map<string, number>();
  // One token and access reload at a time per token and project, shared by its streams.
  private readonly reloads = new Map<string, Promise<ProjectAccess>>();
  private stopListening: (() => void) | undefined;
  private stopWatchingGaps: (() => void) | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;

  /**
   * How old the access a re-check decides on may be. Every write to an access-deciding table drops
   * the access caches: this instance's own writes, and — through a relay that announces access
   * changes — other nodes' too. Then a cached answer is current and a re-check costs no read. On a
   * store other nodes write to without such a relay, their changes are seen only by reading it again.
   */
  private readonly freshness: number | undefined;
  readonly shared: boolean;

  constructor(private readonly ctx: Context) {
    this.shared = ctx.storage.shared === true && ctx.bus.onAccessChange === undefined;
    this.freshness = this.shared ? RECHECK_FRESHNESS_MS : undefined;
  }

  accessVersion(): number {
    return this.ctx.caches.access.version;
  }

  readonly pathMatcher = (pattern: string): ValuePredicate => {
    const cache = this.ctx.caches.get(pathGlobs);
    let predicate = cache.get(pattern);
    if (predicate === undefined) cache.set(pattern, (predicate = globPredicate(pattern)));
    return predicate;
  };

  /** Opens a subscription for an authorized actor; 429 past the per-actor, per-project limit. */
  open(actor: Actor, access: ProjectAccess, registrations: readonly Registration[]): ProjectSubscription {
    const principal = actorPrincipal(actor);
    if (!principal) throw new UnauthorizedError("A valid access token is required");
    // A stream opened now would miss events without a sign: the client is told to come back.
    const relayDown = this.ctx.bus.unavailableReason?.();
    if (relayDown) throw new ServiceUnavailableError(relayDown, 1);
    const cap = this.ctx.config.maxEventStreams;
    if (this.owners.size >= cap) throw new ServiceUnavailableError(`This node has ${cap} event streams open, its limit; retry later or elsewhere`, 5);
    const projectId = access.project.id;
    const limitKey = `${principal.kind}:${principal.id}:${projectId}`;
    const count = this.streamCounts.get(limitKey) ?? 0;
    if (count >= MAX_STREAMS_PER_ACTOR_AND_PROJECT) {
      throw new RateLimitError(`At most ${MAX_STREAMS_PER_ACTOR_AND_PROJECT} event streams may be open per actor and project`);
    }
    this.streamCounts.set(limitKey, count + 1);

    const subscription = new ProjectSubscription(this, projectId, registrations, access, this.ctx.clock.now().getTime());
    this.owners.set(subscription, { actor, limitKey });
    let peers = this.byProject.get(projectId);
    if (!peers) this.byProject.set(projectId, (peers = new Set()));
    peers.add(subscription);
    this.stopListening ??= this.ctx.bus.subscribe(this.dispatch);
    this.stopWatchingGaps ??= this.ctx.bus.onGap?.(this.gap);
    if (!this.ticker) {
      this.ticker = setInterval(this.tick, RECHECK_TICK_MS);
      // Open subscriptions alone must not keep a process alive.
      this.ticker.unref?.();
    }
    return subscription;
  }

  /** Subscriptions open on this node. */
  get size(): number {
    return this.owners.size;
  }

  release(subscription: ProjectSubscription): void {
    const owner = this.owners.get(subscription);
    if (!owner) return;
    this.owners.delete(subscription);
    const count = (this.streamCounts.get(owner.limitKey) ?? 1) - 1;
    if (count > 0) this.streamCounts.set(owner.limitKey, count);
    else this.streamCounts.delete(owner.limitKey);
    const peers = this.byProject.get(subscription.projectId);
    peers?.delete(subscription);
    if (peers?.size === 0) this.byProject.delete(subscription.projectId);
    if (this.owners.size === 0) {
      this.stopListening?.();
      this.stopListening = undefined;
      this.stopWatchingGaps?.();
      this.stopWatchingGaps = undefined;
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Ends every open subscription (the instance is shutting down); consumers see their streams end. */
  endAll(): void {
    for (const subscription of [...this.owners.keys()]) subscription.end();
  }

  reloadAccess(subscription: ProjectSubscription): Promise<ProjectAccess> {
    const owner = this.owners.get(subscription);
    if (!owner || owner.actor.type === "anonymous") return Promise.reject(new UnauthorizedError("The subscription is closed"));
    const key = `${owner.actor.tokenId}\u0000${subscription.projectId}`;
    let reload = this.reloads.get(key);
    if (!reload) {
      reload = reloadAccess(this.ctx, owner.actor, subscription.projectId, this.freshness).finally(() => this.reloads.delete(key));
      this.reloads.set(key, reload);
    }
    return reload;
  }

  private readonly dispatch = (event: ProjectEvent): void => {
    const subscriptions = this.byProject.get(event.projectId);
    if (!subscriptions) return;
    const now = this.ctx.clock.now().getTime();
    for (const subscription of subscriptions) {
      try {
        subscription.deliver(event, now);
      } catch (thrown) {
        subscription.fail(asStrongroomError(thrown));
      }
    }
  };

  /**
   * Events may have been missed (the relay lost its connection): every open stream ends with an
   * error saying so, and its client reconnects. There is no replay (SPEC), so a stream that went
   * on would have a hole its client could not see.
   */
  private readonly gap = (reason: string): void => {
    for (const subscription of [...this.owners.keys()]) subscription.fail(new ServiceUnavailableError(reason, 1));
  };

  private readonly tick = (): void => {
    const now = this.ctx.clock.now().getTime();
    for (const subscription of this.owners.keys()) subscription.recheckIfDue(now);
  };
}

/** The open subscriptions of an instance: one registry per instance. */
export const subscriptionRegistry = defineService("event-subscriptions", (ctx) => new SubscriptionRegistry(ctx));

/** The registry of the instance `ctx` belongs to. */
export const subscriptionsOf = (ctx: Context): SubscriptionRegistry => ctx.service(subscriptionRegistry);
