import { accessRepository } from "../../access/repository.js";
import { actorPrincipal, type Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import type { BundleGrant, BundleRow } from "../tables.js";

/** Whether the bundle is granted to this user or machine identity. */
export function holdsGrant(bundle: Pick<BundleRow, "grants">, principal: { kind: "user" | "identity"; id: string }): boolean {
  return bundle.grants.some((grant) => grant.type === principal.kind && grant.id === principal.id);
}

export const isGrantee = (bundle: BundleRow, actor: Actor): boolean => {
  const principal = actorPrincipal(actor);
  return principal !== undefined && holdsGrant(bundle, principal);
};

export function uniqueGrants(grants: readonly BundleGrant[]): BundleGrant[] {
  const seen = new Set<string>();
  return grants.filter((grant) => {
    const key = `${grant.type}:${grant.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Whether a user (its membership) or a machine identity belongs to the organization. */
export async function inOrganization(ctx: Context, orgId: string, grantee: BundleGrant): Promise<boolean> {
  const access = ctx.repo(accessRepository);
  if (grantee.type === "user") return (await access.orgMembership(orgId, grantee.id)) !== undefined;
  return (await access.identity(grantee.id))?.orgId === orgId;
}

/** Grantees must be users or machine identities of the bundle's organization; 400 naming the others. */
export async function checkGrantees(ctx: Context, orgId: string, grants: readonly BundleGrant[]): Promise<void> {
  const unknown: string[] = [];
  for (const grant of grants) {
    if (!(await inOrganization(ctx, orgId, grant))) unknown.push(`${grant.type} ${grant.id}`);
  }
  if (unknown.length) throw new BadRequestError(`Not in this organization: ${unknown.join(", ")}`);
}
