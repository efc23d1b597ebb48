import { UnauthorizedError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import { proxyRepository } from "../proxies/repository.js";
import type { ProxyRow } from "../tables.js";

export interface CallingProxy {
  readonly proxy: ProxyRow;
  /** The access token the proxy called with. */
  readonly tokenId: string;
}

/** The enrolled proxy making the call; 401 for any other caller and for a proxy that no longer exists. */
export const callingProxyScope: Middleware<unknown, CallingProxy> = async (ctx, actor) => {
  if (actor.type !== "agent-proxy") throw new UnauthorizedError("An agent proxy token is required");
  const proxy = await ctx.repo(proxyRepository).byId(actor.proxyId);
  if (!proxy || proxy.orgId !== actor.orgId) throw new UnauthorizedError("This agent proxy no longer exists");
  return { proxy, tokenId: actor.tokenId };
};
