import { z } from "zod";
import { orgRoleOf } from "../../access/org-access.js";
import { sha256Hex } from "../../crypto/hash.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { newId, newSecretToken } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { holdsGrant } from "../bundles/grants.js";
import { bundleRepository } from "../bundles/repository.js";
import { proxyRepository } from "../proxies/repository.js";
import type { SessionRow } from "../tables.js";
import { sessionRepository } from "./repository.js";
import { createSessionInput, sessionRefInput, sessionSchema } from "./schemas.js";
import { ownedSessionScope } from "./scope.js";
import { toSession } from "./view.js";

/** Agent sessions: a bearer token an agent presents to a proxy, standing for one access bundle. */

/** `agv_` + base64url(32 random bytes); only the SHA-256 is stored. */
export const SESSION_TOKEN_PREFIX = "agv_";
const DEFAULT_TTL_SECONDS = 60 * 60;

export const agentSessionOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Open an agent session on an access bundle the caller holds a grant on. The token (shown only here) is what the agent " +
      "presents to an agent proxy; `proxyId` limits it to one proxy. Expires after `ttl` (default 1 hour, at most 24 hours).",
    audience: "principal",
    input: createSessionInput,
    output: z.object({ session: sessionSchema, token: z.string() }),
    async run(ctx, actor, input) {
      const principal = actorPrincipal(actor)!;
      const bundle = await ctx.repo(bundleRepository).byId(input.bundleId);
      const orgRole = bundle && (await orgRoleOf(ctx, actor, bundle.orgId));
      if (!bundle || !orgRole) throw new NotFoundError("Access bundle not found");
      if (orgRole === "no-access" || !holdsGrant(bundle, principal)) {
        throw new PermissionDeniedError("You hold no grant on this access bundle");
      }
      if (input.proxyId !== undefined) {
        const proxy = await ctx.repo(proxyRepository).byId(input.proxyId);
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
      await ctx.repo(sessionRepository).insert(row);
      return { session: toSession(row), token };
    },
  }),

  revoke: defineOperation({
    name: "revoke",
    summary: "End an agent session (its owner, or an admin of its organization); proxies drop it at their next poll",
    audience: "principal",
    input: sessionRefInput,
    output: z.object({ session: sessionSchema }),
    use: ownedSessionScope,
    async run(ctx, _actor, _input, { session }) {
      await ctx.repo(sessionRepository).revoke(session.id, ctx.clock.now().toISOString());
      return { session: toSession(session) };
    },
  }),
};
