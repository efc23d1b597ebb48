/**
 * Where a call came from, as the adapter saw it. `ip` is the client's address (DESIGN.md §11:
 * the socket peer, or through trusted proxies the right-most untrusted X-Forwarded-For entry);
 * trusted-IP lists, lockouts, throttling and audit all use this one value. Absent for calls
 * made in-process without an adapter.
 */
export interface RequestContext {
  readonly ip?: string;
  readonly userAgent?: string;
}

/** Who is calling. Resolved from a bearer token by `auth.authenticate`, then passed to every operation. */
export type Actor = (
  | { type: "anonymous" }
  | { type: "user"; userId: string; tokenId: string }
  | { type: "identity"; identityId: string; orgId: string; tokenId: string }
  | { type: "agent-proxy"; proxyId: string; orgId: string; tokenId: string }
) & { readonly request?: RequestContext };

export const anonymous: Actor = { type: "anonymous" };

/** The id permissions and memberships are keyed by, for users and identities. */
export function actorPrincipal(actor: Actor): { kind: "user" | "identity"; id: string } | undefined {
  if (actor.type === "user") return { kind: "user", id: actor.userId };
  if (actor.type === "identity") return { kind: "identity", id: actor.identityId };
  return undefined;
}
