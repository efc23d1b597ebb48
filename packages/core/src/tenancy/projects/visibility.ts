import { accessRepository } from "../../access/repository.js";
import { actorPrincipal, type Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import { projectRepository } from "./repository.js";
import { projectObject, type ProjectObject } from "./view.js";

// Made on first use: a collator loads ICU's collation data (~10 ms of start-up, issue #22).
let collator: Intl.Collator | undefined;
const byName = () => (collator ??= new Intl.Collator("en", { sensitivity: "base", numeric: true }));

/** The organizations an actor belongs to, with its role in each. */
async function organizationsOf(ctx: Context, actor: Actor): Promise<{ orgId: string; role: string }[]> {
  const access = ctx.repo(accessRepository);
  if (actor.type === "identity") {
    const identity = await access.identity(actor.identityId);
    return identity ? [{ orgId: identity.orgId, role: identity.role }] : [];
  }
  if (actor.type === "user") return (await access.orgMembershipsOfUser(actor.userId)).map((m) => ({ orgId: m.orgId, role: m.role }));
  return [];
}

/**
 * The projects an actor may see, by name: those it is a member of, and every project of an
 * organization it administers (an organization admin administers them all). A named organization
 * the actor does not belong to is a 404, like every organization it may not know exists.
 */
export async function visibleProjects(ctx: Context, actor: Actor, filter: { type?: string; organizationId?: string }): Promise<ProjectObject[]> {
  let orgs = await organizationsOf(ctx, actor);
  if (filter.organizationId) {
    orgs = orgs.filter((o) => o.orgId === filter.organizationId);
    if (orgs.length === 0) throw new NotFoundError("Organization not found");
  }
  const principal = actorPrincipal(actor);
  if (!principal || orgs.length === 0) return [];
  const repo = ctx.repo(projectRepository);
  const administered = orgs.filter((o) => o.role === "admin").map((o) => o.orgId);
  const others = new Set(orgs.filter((o) => o.role !== "admin").map((o) => o.orgId));
  const asMember = (await repo.byIds([...(await repo.memberOf(principal))])).filter((p) => others.has(p.orgId));
  const type = filter.type === "all" ? undefined : filter.type;
  const projects = [...(await repo.inOrganizations(administered)), ...asMember]
    .filter((p) => !type || p.type === type)
    .sort((a, b) => byName().compare(a.name, b.name) || (a.id < b.id ? -1 : 1));
  const environments = await repo.environmentsOfMany(projects.map((p) => p.id));
  return projects.map((p) => projectObject(p, environments.get(p.id) ?? []));
}
