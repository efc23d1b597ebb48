import { requireOrgRole, resolveActingOrg } from "../../access/org-access.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import type { ProxyRow } from "../tables.js";
import { proxyRepository } from "./repository.js";

/** A proxy of an organization the actor administers: 404 outside its organizations, 403 for non-admins. */
export const administeredProxyScope: Middleware<{ proxyId: string }, { proxy: ProxyRow }> = async (ctx, actor, input) => {
  const notFound = () => new NotFoundError("Agent proxy not found");
  const proxy = await ctx.repo(proxyRepository).byId(input.proxyId);
  if (!proxy) throw notFound();
  await requireOrgRole(ctx, actor, proxy.orgId, ["admin"]).catch((error: unknown) => {
    throw error instanceof NotFoundError ? notFound() : error;
  });
  return { proxy };
};

/** The organization the actor acts in (named by `organizationId` when it has several), which it must administer. */
export const administeredOrgScope: Middleware<{ organizationId?: string }, { orgId: string }> = async (ctx, actor, input) => {
  const orgId = await resolveActingOrg(ctx, actor, input.organizationId);
  await requireOrgRole(ctx, actor, orgId, ["admin"]);
  return { orgId };
};
