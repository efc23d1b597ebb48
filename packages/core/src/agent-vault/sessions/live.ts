import { accessRepository } from "../../access/repository.js";
import type { Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { holdsGrant } from "../bundles/grants.js";
import { bundleRepository } from "../bundles/repository.js";
import type { BundleRow, ProxyRow, SessionRow } from "../tables.js";
import { sessionRepository } from "./repository.js";

/**
 * Which agent sessions a proxy honours. A session counts while it is unrevoked and unexpired, is
 * for this proxy (or for any proxy of its organization), its bundle still exists and still grants
 * the session's principal, and that principal still acts in the organization: taking a grant or
 * a membership away ends the sessions it carried without revoking each one.
 */

export interface LiveSession {
  session: SessionRow;
  bundle: BundleRow;
}

async function principalActs(ctx: Context, orgId: string, session: SessionRow): Promise<boolean> {
  const access = ctx.repo(accessRepository);
  if (session.principalType === "identity") return (await access.identity(session.principalId))?.orgId === orgId;
  const membership = await access.orgMembership(orgId, session.principalId);
  return !!membership && membership.role !== "no-access";
}

async function keepLive(ctx: Context, sessions: readonly SessionRow[]): Promise<LiveSession[]> {
  const bundles = await ctx.repo(bundleRepository).byIds([...new Set(sessions.map((s) => s.bundleId))]);
  const byId = new Map(bundles.map((bundle) => [bundle.id, bundle]));
  const live: LiveSession[] = [];
  for (const session of sessions) {
    const bundle = byId.get(session.bundleId);
    const principal = { kind: session.principalType as "user" | "identity", id: session.principalId };
    if (bundle && bundle.orgId === session.orgId && holdsGrant(bundle, principal) && (await principalActs(ctx, session.orgId, session))) {
      live.push({ session, bundle });
    }
  }
  return live;
}

/** Every session the proxy honours now, oldest first. */
export async function liveSessionsOf(ctx: Context, proxy: ProxyRow, now: Date): Promise<LiveSession[]> {
  return keepLive(ctx, await ctx.repo(sessionRepository).servedBy(proxy, now));
}

/** The session a presented token opens through this proxy, if it is live. */
export async function liveSessionByToken(ctx: Context, proxy: ProxyRow, token: string, now: Date): Promise<LiveSession | undefined> {
  const row = await ctx.repo(sessionRepository).servedByWithToken(proxy, sha256Hex(token), now);
  return row ? (await keepLive(ctx, [row]))[0] : undefined;
}
