import { z } from "zod";
import { NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { parseHostPatterns } from "../brokering/host-pattern.js";
import type { ProxyRow } from "../tables.js";
import { issueEnrollmentToken } from "./enrollment-tokens.js";
import { proxyRepository } from "./repository.js";
import {
  createProxyInput,
  createProxyOutput,
  listProxiesInput,
  proxyAdminViewSchema,
  proxyOutput,
  proxyRefInput,
  updateProxyInput,
} from "./schemas.js";
import { administeredOrgScope, administeredProxyScope } from "./scope.js";
import { toAdminView } from "./view.js";

function checkAllowedHosts(allowedHosts: string | null | undefined): void {
  if (allowedHosts) parseHostPatterns(allowedHosts);
}

const gone = (proxy: ProxyRow | undefined): ProxyRow => {
  if (!proxy) throw new NotFoundError("Agent proxy not found");
  return proxy;
};

export const agentProxyAdminOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Register an agent proxy in the caller's organization (organization admins) and issue its one-time enrollment token, valid one hour. " +
      "A user in several organizations names one with the `organizationId` query parameter.",
    audience: "principal",
    input: createProxyInput,
    output: createProxyOutput,
    use: administeredOrgScope,
    async run(ctx, _actor, input, { orgId }) {
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
      const issued = await ctx.withTransaction(async (tx) => {
        await tx.repo(proxyRepository).insert(proxy);
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
    use: administeredOrgScope,
    async run(ctx, _actor, _input, { orgId }) {
      const rows = await ctx.repo(proxyRepository).ofOrganization(orgId);
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
    use: administeredProxyScope,
    async run(ctx, _actor, _input, { proxy }) {
      return { proxy: toAdminView(proxy, ctx.clock.now()) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Change an agent proxy's name, traffic policy, allowed hosts or poll interval; the proxy picks them up at its next poll",
    audience: "principal",
    input: updateProxyInput,
    output: proxyOutput,
    use: administeredProxyScope,
    async run(ctx, _actor, { proxyId: _, ...changes }, { proxy }) {
      checkAllowedHosts(changes.allowedHosts);
      const patch = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const updated = await ctx.repo(proxyRepository).update(proxy.id, { ...patch, updatedAt: ctx.clock.now().toISOString() });
      return { proxy: toAdminView(gone(updated), ctx.clock.now()) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an agent proxy: its tokens stop working and the sessions bound to it end",
    audience: "principal",
    input: proxyRefInput,
    output: proxyOutput,
    use: administeredProxyScope,
    async run(ctx, _actor, _input, { proxy }) {
      await ctx.repo(proxyRepository).remove(proxy.id, ctx.clock.now().toISOString());
      return { proxy: toAdminView(proxy, ctx.clock.now()) };
    },
  }),

  issueEnrollmentToken: defineOperation({
    name: "issueEnrollmentToken",
    summary: "Issue a new one-time enrollment token for an agent proxy, valid one hour; the previous token stops working",
    audience: "principal",
    input: proxyRefInput,
    output: createProxyOutput,
    use: administeredProxyScope,
    async run(ctx, _actor, _input, { proxy }) {
      const now = ctx.clock.now();
      const issued = await issueEnrollmentToken(ctx, proxy.id, now);
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
    use: administeredProxyScope,
    async run(ctx, _actor, _input, { proxy }) {
      const proxies = ctx.repo(proxyRepository);
      await proxies.revoke(proxy.id, ctx.clock.now().toISOString());
      return { proxy: toAdminView(gone(await proxies.byId(proxy.id)), ctx.clock.now()) };
    },
  }),
};
