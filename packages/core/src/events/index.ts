export { eventOperations } from "./operations.js";
export { DEFAULT_SUBSCRIBED_PATH, MAX_REGISTRATIONS, subscribeInput, type SubscribeInput } from "./schemas.js";
export {
  indexRegistrations,
  registrationObject,
  selectPayload,
  SECRET_EVENTS_SUBJECT,
  SUBSCRIBE_ACTIONS,
  toRegistration,
  type Registration,
  type RegistrationIndex,
  type SecretEventObject,
  type SecretEventPermission,
} from "./match.js";
export type { Delivery, EventDelivery, SubscribedEvent } from "./deliveries.js";
export { MAX_QUEUED_EVENTS, RECHECK_INTERVAL_MS, type ProjectEventSubscription } from "./subscription.js";
export { MAX_STREAMS_PER_ACTOR_AND_PROJECT, RECHECK_TICK_MS, subscriptionsOf } from "./registry.js";
