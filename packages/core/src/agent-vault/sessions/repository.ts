import { sha256Hex } from "../../crypto/hash.js";
import type { AgentVaultRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";
import { holdsGrant, type BundleRow } from "../bundles/repository.js";
import type { ProxyRow } from "../proxies/view.js";

/**
 * Which agent sessions a proxy honours. A session counts while it is unrevoked and unexpired, is
 * for this proxy (or for any proxy of its organization), its bundle still exists and still grants
 * the session's principal, and that principal still acts in the organization: taking a grant or
 * a membership away ends the sessions it carried without revoking each one.
 */

export type SessionRow = AgentVaultRow<"agentSessions">;

export interface LiveSession {
  session: SessionRow;
  bundle: BundleRow;
}

export const SESSION_TOKEN_PREFIX = "agv_";

async function principalActs(storage: Storage, orgId: string, session: SessionRow): Promise<boolean> {
  if (session.principalType === "identity") return !!(await storage.tables.identities.findOne({ id: session.principalId, orgId }));
  const membership = await storage.tables.orgMemberships.findOne({ orgId, userId: session.principalId });
  return !!membership && membership.role !== "no-access";
}

async function keepLive(storage: Storage, sessions: readonly SessionRow[]): Promise<LiveSession[]> {
  const bundleIds = [...new Set(sessions.map((s) => s.bundleId))];
  const bundles = bundleIds.length ? await storage.tables.agentAccessBundles.find({ id: { in: bundleIds } }) : [];
  const byId = new Map(bundles.map((bundle) => [bundle.id, bundle]));
  const live: LiveSession[] = [];
  for (const session of sessions) {
    const bundle = byId.get(session.bundleId);
    const principal = { kind: session.principalType as "user" | "identity", id: session.principalId };
    if (bundle && bundle.orgId === session.orgId && holdsGrant(bundle, principal) && (await principalActs(storage, session.orgId, session))) {
      live.push({ session, bundle });
    }
  }
  return live;
}

const forProxy = (proxy: ProxyRow, now: Date) => ({
  orgId: proxy.orgId,
  revokedAt: null,
  expiresAt: { gt: now.toISOString() },
  proxyId: { in: [null, proxy.id] },
});

/** Every session the proxy honours now, oldest first. */
export async function liveSessionsOf(storage: Storage, proxy: ProxyRow, now: Date): Promise<LiveSession[]> {
  const rows = await storage.tables.agentSessions.find(forProxy(proxy, now), { orderBy: [["createdAt", "asc"], ["id", "asc"]] });
  return keepLive(storage, rows);
}

/** The session a presented token opens through this proxy, if it is live. */
export async function liveSessionByToken(storage: Storage, proxy: ProxyRow, token: string, now: Date): Promise<LiveSession | undefined> {
  const row = await storage.tables.agentSessions.findOne({ ...forProxy(proxy, now), tokenHash: sha256Hex(token) });
  return row ? (await keepLive(storage, [row]))[0] : undefined;
}
