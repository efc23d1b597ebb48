import { formatHostPort, normalizeHost } from "../../net/host-name.js";
import { compileHostPatterns, findBestMatch, matchHostPattern, type HostMatchOptions } from "./host-pattern.js";

/**
 * The agent proxy's per-request decision (SPEC.md "Agent proxies" rules, DESIGN.md §7). Pure: the
 * proxy supplies the services of the agent's organisation, flagged by whether the agent's access
 * bundles grant them.
 */
export type TrafficPolicy = "any-host" | "bundle-hosts";

export interface TrafficService<C = unknown> {
  readonly id: string;
  /** Comma-separated host patterns, as stored. */
  readonly hostPattern: string;
  readonly isEnabled: boolean;
  readonly credentials: readonly C[];
  /** True when one of the agent's access bundles grants this service. */
  readonly bundled: boolean;
}

export interface TrafficInput<S extends TrafficService> {
  readonly policy: TrafficPolicy;
  readonly allowedHosts: string | null;
  /** In definition order: among equally specific matches the first one wins. */
  readonly services: readonly S[];
  readonly host: string;
  readonly port: number;
  /** Whether the agent's request to the upstream is TLS (CONNECT then TLS), not plain HTTP. */
  readonly tls: boolean;
}

export type BrokerReason = "service-match";
export type PassthroughReason = "allowed-host" | "no-matching-service" | "tls-required";
export type DenyReason = "host-not-allowed" | "invalid-destination";

export interface BrokerDecision<S extends TrafficService> {
  readonly action: "broker";
  readonly service: S;
  readonly credentials: S["credentials"];
  readonly reason: BrokerReason;
}
export interface PassthroughDecision {
  readonly action: "passthrough";
  readonly reason: PassthroughReason;
}
export interface DenyDecision {
  readonly action: "deny";
  readonly status: 403;
  readonly reason: DenyReason;
  /** Names the host, for the 403 body the agent receives. */
  readonly message: string;
}
export type TrafficDecision<S extends TrafficService = TrafficService> = BrokerDecision<S> | PassthroughDecision | DenyDecision;

/** DESIGN.md §7: in a bundle grant, a portless pattern means HTTPS only. */
const BUNDLE_GRANT: HostMatchOptions = { portlessPort: 443 };
const SERVICE_MATCH: HostMatchOptions = {};

/**
 * Order of the rules:
 * 1. A host or port that is not valid is denied under both policies: nothing could be reached.
 * 2. A host matching `allowedHosts` passes through without a credential, under both policies and
 *    even when a granted service also matches it (SPEC rule 3 has no exception; to broker such a
 *    host, take it out of `allowedHosts` or narrow the entry by port).
 * 3. Only enabled services granted by the agent's bundles can broker, under both policies: a
 *    service the agent was not granted never lends it a credential.
 * 4. Under `bundle-hosts` a portless pattern grants port 443 only and an unmatched host is denied;
 *    under `any-host` a portless pattern matches every port and an unmatched host passes through.
 * 5. A matched host over plain HTTP passes through: credentials travel only inside TLS.
 */
export function decideTraffic<S extends TrafficService>(input: TrafficInput<S>): TrafficDecision<S> {
  const { policy, host, port } = input;
  const name = normalizeHost(host);
  if (name === null || !Number.isInteger(port) || port < 1 || port > 65535) {
    return deny("invalid-destination", `Destination ${JSON.stringify(`${host}:${port}`)} is not a valid host and port`);
  }
  const allowed = compileHostPatterns(input.allowedHosts);
  if (allowed.some((pattern) => matchHostPattern(pattern, name, port))) {
    return { action: "passthrough", reason: "allowed-host" };
  }
  const granted = input.services.filter((service) => service.isEnabled && service.bundled);
  const options = policy === "bundle-hosts" ? BUNDLE_GRANT : SERVICE_MATCH;
  const match = findBestMatch(granted, (service) => compileHostPatterns(service.hostPattern), name, port, options);
  if (match === null) {
    return policy === "bundle-hosts"
      ? deny("host-not-allowed", `Host ${formatHostPort(name, port)} is not allowed by this agent proxy's bundle-hosts policy`)
      : { action: "passthrough", reason: "no-matching-service" };
  }
  if (!input.tls) return { action: "passthrough", reason: "tls-required" };
  return { action: "broker", service: match.entry, credentials: match.entry.credentials, reason: "service-match" };
}

function deny(reason: DenyReason, message: string): DenyDecision {
  return { action: "deny", status: 403, reason, message };
}
