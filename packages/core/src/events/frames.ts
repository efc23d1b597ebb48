import { StrongroomError } from "../kernel/errors.js";
import type { ProjectEvent } from "../kernel/bus.js";

/** One Server-Sent Events frame; the HTTP adapter writes it as `id:`, `event:` and `data:` lines. */
export interface SseFrame {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/** An event as one subscriber receives it: its payload narrowed to what it asked for and may see. */
export type SubscribedEvent = ProjectEvent & { readonly id: string };

/** What a subscription queues: an event for the subscriber, or the error that ends the subscription. */
export type Delivery =
  | { readonly kind: "event"; readonly id: string; readonly source: ProjectEvent; readonly payload: ProjectEvent["payload"] }
  | { readonly kind: "error"; readonly error: StrongroomError };

export function toSubscribedEvent(delivery: Extract<Delivery, { kind: "event" }>): SubscribedEvent {
  return { ...delivery.source, payload: delivery.payload, id: delivery.id } as SubscribedEvent;
}

const serialize = (source: ProjectEvent, payload: ProjectEvent["payload"]) =>
  JSON.stringify({ projectType: source.projectType, data: { eventType: source.eventType, payload } });

// Most subscribers receive an event whole; its text is then built once, not once per subscriber.
const wholeEventData = new WeakMap<ProjectEvent, string>();

function eventData(source: ProjectEvent, payload: ProjectEvent["payload"]): string {
  if (payload !== source.payload) return serialize(source, payload);
  let data = wholeEventData.get(source);
  if (data === undefined) {
    data = serialize(source, payload);
    wholeEventData.set(source, data);
  }
  return data;
}

/** `id: <n>`, `event: <eventType>`, `data: {"projectType", "data": {"eventType", "payload"}}` (SPEC.md "Events"). */
export function toSseFrame(delivery: Delivery): SseFrame {
  if (delivery.kind === "error") {
    const { status, errorName, message } = delivery.error;
    return { event: "error", data: JSON.stringify({ statusCode: status, error: errorName, message }) };
  }
  return { id: delivery.id, event: delivery.source.eventType, data: eventData(delivery.source, delivery.payload) };
}

/** What the subscriber is told when the stream fails for a reason it has no business knowing. */
export function asStrongroomError(thrown: unknown): StrongroomError {
  return thrown instanceof StrongroomError ? thrown : new StrongroomError(500, "InternalServerError", "Something went wrong");
}
