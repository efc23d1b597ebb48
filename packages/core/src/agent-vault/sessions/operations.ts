import { z } from "zod";
import { orgRoleOf } from "../../access/org-access.js";
import { actorPrincipal, type Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { parseDuration } from "../../permissions/duration.js";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { holdsGrant } from "../bundles/repository.js";
import { SESSION_TOKEN_PREFIX, type SessionRow } from "./repository.js";

/** Agent sessions: a bearer token an agent presents to a proxy, standing for one access bundle. */

const DEFAULT_TTL_SECONDS = 60 * 60;
const MIN_TTL_SECONDS = 60;
const MAX_TTL_SECONDS = 24 * 60 * 60;

/** Seconds, or a duration such as `15m`, `8h`, `1d`; one minute to 24 hours. */
const sessionTtl = z
  .union([z.number().int(), z.string().max(16)])
  .transform((ttl, ctx) => {
    const seconds = typeof ttl === "number" ? ttl : (parseDuration(ttl) ?? NaN) / 1000;
    if (!(seconds >= MIN_TTL_SECONDS && seconds <= MAX_TTL_SECONDS) || !Number.isInteger(seconds)) {
      ctx.addIssue({ code: "custom", message: `ttl must be ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS} seconds, or a duration such as 15m, 8h, 1d` });
      return z.NEVER;
    }
    return seconds;
  });

const sessionSchema = z.strictObject({ id: uuid, expiresAt: isoDateTime, bundleId: uuid });

const toSession = (row: SessionRow) => ({ id: row.id, expiresAt: row.expiresAt, bundleId: row.bundleId });

const NOT_FOUND = "Agent session not found";

/** A session its owner or an admin of its organization may end; 404 for everyone else. */
async function ownedSession(ctx: Context, actor: Actor, sessionId: string): Promise<SessionRow> {
  const session = await ctx.storage.tables.agentSessions.get(sessionId);
  const principal = actorPrincipal(actor);
  if (!session || !principal) throw new NotFoundError(NOT_FOUND);
  const owns = session.principalType === principal.kind && session.principalId === principal.id;
  if (!owns && (await orgRoleOf(ctx, actor, session.orgId)) !== "admin") throw new NotFoundError(NOT_FOUND);
  return session;
}

export const agentSessionOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Open an agent session on an access bundle the caller holds a grant on. The token (shown only here) is what the agent " +
      "presents to an agent proxy; `proxyId` limits it to one proxy. Expires after `ttl` (default 1 hour, at most 24 hours).",
    audience: "principal",
    input: z.object({
      bundleId: z.string().min(1).max(255),
      proxyId: z.string().min(1).max(255).optional(),
      ttl: sessionTtl.optional(),
    }),
    output: z.object({ session: sessionSchema, token: z.string() }),
    async run(ctx, actor, input) {
      const principal = actorPrincipal(actor)!;
      const bundle = await ctx.storage.tables.agentAccessBundles.get(input.bundleId);
      const orgRole = bundle && (await orgRoleOf(ctx, actor, bundle.orgId));
      if (!bundle || !orgRole) throw new NotFoundError("Access bundle not found");
      if (orgRole === "no-access" || !holdsGrant(bundle, principal)) {
        throw new PermissionDeniedError("You hold no grant on this access bundle");
      }
      if (input.proxyId !== undefined) {
        const proxy = await ctx.storage.tables.agentProxies.get(input.proxyId);
        if (!proxy || proxy.orgId !== bundle.orgId) throw new NotFoundError("Agent proxy not found");
      }
      const token = newSecretToken(SESSION_TOKEN_PREFIX);
      const now = ctx.clock.now();
      const row: SessionRow = {
        id: newId(),
        orgId: bundle.orgId,
        bundleId: bundle.id,
        proxyId: input.proxyId ?? null,
        principalType: principal.kind,
        principalId: principal.id,
        tokenHash: sha256Hex(token),
        expiresAt: new Date(now.getTime() + (input.ttl ?? DEFAULT_TTL_SECONDS) * 1000).toISOString(),
        revokedAt: null,
        createdAt: now.toISOString(),
      };
      await ctx.storage.tables.agentSessions.insert(row);
      return { session: toSession(row), token };
    },
  }),

  revoke: defineOperation({
    name: "revoke",
    summary: "End an agent session (its owner, or an admin of its organization); proxies drop it at their next poll",
    audience: "principal",
    input: z.object({ sessionId: z.string().min(1).max(255) }),
    output: z.object({ session: sessionSchema }),
    async run(ctx, actor, input) {
      const session = await ownedSession(ctx, actor, input.sessionId);
      await ctx.storage.tables.agentSessions.update({ id: session.id, revokedAt: null }, { revokedAt: ctx.clock.now().toISOString() });
      return { session: toSession(session) };
    },
  }),
};
