import { globPredicate, type ValuePredicate } from "../permissions/glob.js";
import type { ProjectEvent, SecretEventType } from "../kernel/bus.js";
import { DEFAULT_SUBSCRIBED_PATH } from "./schemas.js";

/** The `secret-events` action an actor needs to receive each kind of event (DESIGN.md §4). */
export const SUBSCRIBE_ACTIONS: Readonly<Record<SecretEventType, string>> = {
  "secret:create": "subscribe-on-created",
  "secret:update": "subscribe-on-updated",
  "secret:delete": "subscribe-on-deleted",
  "secret:import-mutation": "subscribe-on-import-mutations",
  "dynamic-secret-lease:create": "subscribe-on-dynamic-secret-leases",
  "dynamic-secret-lease:renew": "subscribe-on-dynamic-secret-leases",
  "dynamic-secret-lease:revoke": "subscribe-on-dynamic-secret-leases",
};

export const SECRET_EVENTS_SUBJECT = "secret-events";

/** One `register` entry with its defaults applied. */
export interface Registration {
  readonly event: SecretEventType;
  readonly environmentSlug?: string;
  /** A glob over folder paths. */
  readonly secretPath: string;
}

interface CompiledRegistration {
  readonly environmentSlug?: string;
  readonly matchesPath: ValuePredicate;
}

/** A subscription's registrations, compiled once and grouped by the event kind they ask for. */
export type RegistrationIndex = Readonly<Record<SecretEventType, readonly CompiledRegistration[]>>;

export function toRegistration(entry: { event: SecretEventType; conditions?: { environmentSlug?: string; secretPath?: string } }): Registration {
  const { environmentSlug, secretPath = DEFAULT_SUBSCRIBED_PATH } = entry.conditions ?? {};
  return environmentSlug === undefined ? { event: entry.event, secretPath } : { event: entry.event, environmentSlug, secretPath };
}

/** Compiles a path glob into its predicate; the registry passes one that remembers them (registry.ts). */
export type PathMatcher = (pattern: string) => ValuePredicate;

export function indexRegistrations(registrations: readonly Registration[], pathMatcher: PathMatcher = globPredicate): RegistrationIndex {
  const index: Record<SecretEventType, CompiledRegistration[]> = {
    "secret:create": [],
    "secret:update": [],
    "secret:delete": [],
    "secret:import-mutation": [],
    "dynamic-secret-lease:create": [],
    "dynamic-secret-lease:renew": [],
    "dynamic-secret-lease:revoke": [],
  };
  for (const r of registrations) index[r.event].push({ environmentSlug: r.environmentSlug, matchesPath: pathMatcher(r.secretPath) });
  return index;
}

/** The object a `secret-events` check is made against: the event kind and where it happened. */
export type SecretEventObject = {
  readonly eventType: SecretEventType;
  readonly environment?: string;
  readonly secretPath: string;
  readonly secretName?: string;
};

/**
 * Whether the actor may receive events of `action` about `object`: the `secret-events` action and,
 * for an event naming a secret, `describeSecret` on that secret with its tags (`secretTags`).
 */
export type SecretEventPermission = (action: string, object: SecretEventObject, secretTags?: readonly string[]) => boolean;

/** The check object for subscribing with one registration (its glob taken as the path). */
export function registrationObject(registration: Registration): SecretEventObject {
  const { event: eventType, environmentSlug: environment, secretPath } = registration;
  return environment === undefined ? { eventType, secretPath } : { eventType, environment, secretPath };
}

type Item = { environment: string; secretPath: string; secretKey?: string };

function itemWanted(
  wanted: readonly CompiledRegistration[],
  eventType: SecretEventType,
  item: Item,
  permits: SecretEventPermission,
  secretTags: readonly string[] | undefined,
): boolean {
  let registered = false;
  for (const r of wanted) {
    if ((r.environmentSlug === undefined || r.environmentSlug === item.environment) && r.matchesPath(item.secretPath)) {
      registered = true;
      break;
    }
  }
  if (!registered) return false;
  const object: SecretEventObject =
    item.secretKey === undefined
      ? { eventType, environment: item.environment, secretPath: item.secretPath }
      : { eventType, environment: item.environment, secretPath: item.secretPath, secretName: item.secretKey };
  return permits(SUBSCRIBE_ACTIONS[eventType], object, secretTags);
}

/**
 * What of `event` a subscriber receives: the payload items that a registration asks for (kind,
 * environment, path glob) and that the actor may see (secret-events, and describing the secret), or undefined when nothing is left. An
 * array payload whose items all pass is returned as the same array, so its serialisation can be
 * shared by every subscriber that receives it whole.
 */
export function selectPayload(
  event: ProjectEvent,
  registrations: RegistrationIndex,
  permits: SecretEventPermission,
): ProjectEvent["payload"] | undefined {
  const wanted = registrations[event.eventType];
  if (wanted === undefined || wanted.length === 0) return undefined;
  if (!Array.isArray(event.payload)) {
    return itemWanted(wanted, event.eventType, event.payload, permits, undefined) ? event.payload : undefined;
  }
  const items = event.payload;
  // Without tags (an event from an older node), an item counts as untagged.
  const itemTags = "itemTags" in event ? event.itemTags : undefined;
  let kept: typeof items | undefined;
  for (let i = 0; i < items.length; i++) {
    const ok = itemWanted(wanted, event.eventType, items[i], permits, itemTags?.[i] ?? []);
    if (ok && kept) kept.push(items[i]);
    else if (!ok && !kept) kept = items.slice(0, i);
  }
  if (kept === undefined) return items.length > 0 ? items : undefined;
  return kept.length > 0 ? kept : undefined;
}
