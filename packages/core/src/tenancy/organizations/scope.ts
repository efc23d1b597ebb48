import { requireOrgRole, type OrgRole } from "../../access/org-access.js";
import type { Middleware } from "../../kernel/operation.js";

export interface OrganizationScope {
  readonly orgId: string;
  readonly role: OrgRole;
}

/**
 * An organization-level operation's middleware: 404 when the actor is not in the organization
 * named by the input, 403 when its role there is not one of `roles`.
 */
export const organizationScope =
  <I>(options: { organization: (input: I) => string; roles: readonly OrgRole[] }): Middleware<I, OrganizationScope> =>
  async (ctx, actor, input) => {
    const orgId = options.organization(input);
    return { orgId, role: await requireOrgRole(ctx, actor, orgId, options.roles) };
  };
