/**
 * Which sessions a proxy may resolve credentials for: those it serves, i.e. of its own
 * organization, bound to it or to no proxy in particular, under a bundle of that organization.
 * The session lookup already asks storage for exactly these; this check states the rule once more
 * where credentials are handed out, so a change to that query cannot widen it unnoticed.
 */
export interface SessionScope {
  readonly orgId: string;
  readonly proxyId: string | null;
}

export const servesSession = (proxy: { readonly id: string; readonly orgId: string }, session: SessionScope, bundle: { readonly orgId: string }): boolean =>
  session.orgId === proxy.orgId && bundle.orgId === proxy.orgId && (session.proxyId === null || session.proxyId === proxy.id);
