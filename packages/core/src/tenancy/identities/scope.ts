import { requireOrgRole } from "../../access/org-access.js";
import { accessRepository } from "../../access/repository.js";
import type { IdentityRow } from "../../access/tables.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";

/**
 * An identity the actor administers, named by the input: 404 when it does not exist or lies
 * outside the actor's organizations (which it may not know exist), 403 for non-admins.
 */
export const administeredIdentity: Middleware<{ identityId: string }, { identity: IdentityRow }> = async (ctx, actor, input) => {
  const notFound = () => new NotFoundError("Identity not found");
  const identity = await ctx.repo(accessRepository).identity(input.identityId);
  if (!identity) throw notFound();
  await requireOrgRole(ctx, actor, identity.orgId, ["admin"]).catch((error: unknown) => {
    throw error instanceof NotFoundError ? notFound() : error;
  });
  return { identity };
};
