import { orgRoleOf } from "../../access/org-access.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import type { SessionRow } from "../tables.js";
import { sessionRepository } from "./repository.js";

/** A session its owner or an admin of its organization may end; 404 for everyone else. */
export const ownedSessionScope: Middleware<{ sessionId: string }, { session: SessionRow }> = async (ctx, actor, input) => {
  const notFound = () => new NotFoundError("Agent session not found");
  const session = await ctx.repo(sessionRepository).byId(input.sessionId);
  const principal = actorPrincipal(actor);
  if (!session || !principal) throw notFound();
  const owns = session.principalType === principal.kind && session.principalId === principal.id;
  if (!owns && (await orgRoleOf(ctx, actor, session.orgId)) !== "admin") throw notFound();
  return { session };
};
