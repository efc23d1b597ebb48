import { z } from "zod";
import { requireOrgRole, resolveActingOrg } from "../../access/org-access.js";
import type { Actor } from "../../kernel/actor.js";
import { revokeTokensOf } from "../../tenancy/auth/tokens.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { AppStorage as Storage } from "../../schema.js";
import { issueEnrollmentToken, withdrawEnrollmentTokens } from "./enrollment-tokens.js";
import { parseHostPatterns } from "../brokering/host-pattern.js";
import {
  createProxyInput,
  createProxyOutput,
  listProxiesInput,
  proxyAdminViewSchema,
  proxyOutput,
  proxyRefInput,
  updateProxyInput,
} from "./schemas.js";
import { toAdminView, type ProxyRow } from "./view.js";

/** A proxy of an organization the actor administers: 404 outside its organizations, 403 for non-admins. */
async function administeredProxy(ctx: Context, actor: Actor, proxyId: string): Promise<ProxyRow> {
  const proxy = await ctx.storage.tables.agentProxies.get(proxyId);
  if (!proxy) throw new NotFoundError("Agent proxy not found");
  await requireOrgRole(ctx, actor, proxy.orgId, ["admin"]).catch((error) => {
    throw error instanceof NotFoundError ? new NotFoundError("Agent proxy not found") : error;
  });
  return proxy;
}

function checkAllowedHosts(allowedHosts: string | null | undefined): void {
  if (allowedHosts) parseHostPatterns(allowedHosts);
}

async function reload(storage: Storage, proxyId: string): Promise<ProxyRow> {
  const proxy = await storage.tables.agentProxies.get(proxyId);
  if (!proxy) throw new NotFoundError("Agent proxy not found");
  return proxy;
}

export const agentProxyAdminOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Register an agent proxy in the caller's organization (organization admins) and issue its one-time enrollment token, valid one hour. " +
      "A user in several organizations names one with the `organizationId` query parameter.",
    audience: "principal",
    input: createProxyInput,
    output: createProxyOutput,
    async run(ctx, actor, input) {
      const orgId = await resolveActingOrg(ctx, actor, input.organizationId);
      await requireOrgRole(ctx, actor, orgId, ["admin"]);
      checkAllowedHosts(input.allowedHosts);
      const now = ctx.clock.now();
      const proxy: ProxyRow = {
        id: newId(),
        orgId,
        name: input.name,
        trafficPolicy: input.trafficPolicy,
        allowedHosts: input.allowedHosts,
        pollInterval: input.pollInterval,
        heartbeat: null,
        rootCaFingerprint: null,
        rootCaExpiresAt: null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      const issued = await ctx.storage.transaction(async (tx) => {
        await tx.tables.agentProxies.insert(proxy);
        return issueEnrollmentToken(tx, proxy.id, now);
      });
      return { proxy: toAdminView(proxy, now), ...issued };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the agent proxies of the caller's organization (organization admins)",
    audience: "principal",
    input: listProxiesInput,
    output: z.object({ proxies: z.array(proxyAdminViewSchema) }),
    async run(ctx, actor, input) {
      const orgId = await resolveActingOrg(ctx, actor, input.organizationId);
      await requireOrgRole(ctx, actor, orgId, ["admin"]);
      const rows = await ctx.storage.tables.agentProxies.find({ orgId }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] });
      const now = ctx.clock.now();
      return { proxies: rows.map((row) => toAdminView(row, now)) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an agent proxy (organization admins)",
    audience: "principal",
    input: proxyRefInput,
    output: proxyOutput,
    async run(ctx, actor, input) {
      return { proxy: toAdminView(await administeredProxy(ctx, actor, input.proxyId), ctx.clock.now()) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Change an agent proxy's name, traffic policy, allowed hosts or poll interval; the proxy picks them up at its next poll",
    audience: "principal",
    input: updateProxyInput,
    output: proxyOutput,
    async run(ctx, actor, { proxyId, ...changes }) {
      const proxy = await administeredProxy(ctx, actor, proxyId);
      checkAllowedHosts(changes.allowedHosts);
      const patch = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      await ctx.storage.tables.agentProxies.update({ id: proxy.id }, { ...patch, updatedAt: ctx.clock.now().toISOString() });
      return { proxy: toAdminView(await reload(ctx.storage, proxy.id), ctx.clock.now()) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an agent proxy: its tokens stop working and the sessions bound to it end",
    audience: "principal",
    input: proxyRefInput,
    output: proxyOutput,
    async run(ctx, actor, input) {
      const proxy = await administeredProxy(ctx, actor, input.proxyId);
      await ctx.storage.transaction(async (tx) => {
        await revokeTokensOf(ctx, tx, "agent-proxy", proxy.id);
        await withdrawEnrollmentTokens(tx, proxy.id);
        await tx.tables.agentSessions.update({ proxyId: proxy.id, revokedAt: null }, { revokedAt: ctx.clock.now().toISOString() });
        await tx.tables.agentProxies.delete({ id: proxy.id });
      });
      return { proxy: toAdminView(proxy, ctx.clock.now()) };
    },
  }),

  issueEnrollmentToken: defineOperation({
    name: "issueEnrollmentToken",
    summary: "Issue a new one-time enrollment token for an agent proxy, valid one hour; the previous token stops working",
    audience: "principal",
    input: proxyRefInput,
    output: createProxyOutput,
    async run(ctx, actor, input) {
      const proxy = await administeredProxy(ctx, actor, input.proxyId);
      const now = ctx.clock.now();
      const issued = await ctx.storage.transaction((tx) => issueEnrollmentToken(tx, proxy.id, now));
      return { proxy: toAdminView(proxy, now), ...issued };
    },
  }),

  revoke: defineOperation({
    name: "revoke",
    summary:
      "Revoke an agent proxy: its access tokens and any outstanding enrollment token stop working and its root CA is forgotten; " +
      "it must enroll again with a newly issued token",
    audience: "principal",
    input: proxyRefInput,
    output: proxyOutput,
    async run(ctx, actor, input) {
      const proxy = await administeredProxy(ctx, actor, input.proxyId);
      const now = ctx.clock.now().toISOString();
      await ctx.storage.transaction(async (tx) => {
        await revokeTokensOf(ctx, tx, "agent-proxy", proxy.id);
        await withdrawEnrollmentTokens(tx, proxy.id);
        await tx.tables.agentProxies.update(
          { id: proxy.id },
          { heartbeat: null, rootCaFingerprint: null, rootCaExpiresAt: null, updatedAt: now },
        );
      });
      return { proxy: toAdminView(await reload(ctx.storage, proxy.id), ctx.clock.now()) };
    },
  }),
};
