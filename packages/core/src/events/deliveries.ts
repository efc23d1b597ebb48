import { internalError, StrongroomError } from "../kernel/errors.js";
import type { ProjectEvent } from "../kernel/bus.js";

/** An event as one subscriber receives it: its payload narrowed to what it asked for and may see. */
export type SubscribedEvent = ProjectEvent & { readonly id: string };

/**
 * What a subscription hands its consumer: an event (its source as published, and the payload this
 * subscriber may see of it), or the error that ends the subscription. Adapters frame these (the
 * HTTP adapter as Server-Sent Events); the source lets them build a whole event's text once for
 * every subscriber that receives it whole.
 */
export type Delivery =
  | { readonly kind: "event"; readonly id: string; readonly source: ProjectEvent; readonly payload: ProjectEvent["payload"] }
  | { readonly kind: "error"; readonly error: StrongroomError };

export type EventDelivery = Extract<Delivery, { kind: "event" }>;

export function toSubscribedEvent(delivery: EventDelivery): SubscribedEvent {
  // The items' tags decided what this subscriber receives; they are not part of the event it gets.
  const { itemTags: _decided, ...source } = delivery.source as ProjectEvent & { itemTags?: unknown };
  return { ...source, payload: delivery.payload, id: delivery.id } as SubscribedEvent;
}

/** What the subscriber is told when the stream fails for a reason it has no business knowing. */
export function asStrongroomError(thrown: unknown): StrongroomError {
  return thrown instanceof StrongroomError ? thrown : internalError();
}
