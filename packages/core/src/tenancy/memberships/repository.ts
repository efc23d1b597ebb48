import { accessTables, type MembershipRoleRow, type MembershipRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";

/** Whose membership: a user's or a machine identity's. */
export interface Principal {
  kind: "user" | "identity";
  id: string;
}

/** A role as it is given to a membership: the stored row less what the repository fills in. */
export type RoleGrant = Omit<MembershipRoleRow, "id" | "membershipId" | "createdAt" | "updatedAt">;

/** Project memberships of users and machine identities, and the roles they hold. */
export const membershipRepository = defineRepository("memberships", (ctx) => {
  const t = tablesOf(ctx.storage, accessTables);

  /** One batch of role rows, stamped alike: their order is the order given. */
  const roleRows = (membershipId: string, grants: readonly RoleGrant[]): MembershipRoleRow[] => {
    const now = ctx.clock.now().toISOString();
    return grants.map((grant) => ({ id: newId(), membershipId, ...grant, createdAt: now, updatedAt: now }));
  };

  return {
    inProject: (projectId: string, membershipId: string): Promise<MembershipRow | undefined> =>
      t.projectMemberships.findOne({ id: membershipId, projectId }),

    /** A new membership with its first roles, in one transaction. */
    add: (projectId: string, principal: Principal, grants: readonly RoleGrant[]) =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const now = tx.clock.now().toISOString();
        const membership: MembershipRow = {
          id: newId(),
          projectId,
          userId: principal.kind === "user" ? principal.id : null,
          identityId: principal.kind === "identity" ? principal.id : null,
          createdAt: now,
          updatedAt: now,
        };
        await tables.projectMemberships.insert(membership);
        const roles = roleRows(membership.id, grants);
        await tables.membershipRoles.insertMany(roles);
        return { membership, roles };
      }),

    /**
     * Replaces every role of a membership. The membership's row is locked first, so concurrent
     * replacements run one after the other and the last one's roles are what remains — never a
     * mix of both. Undefined when the membership is gone.
     */
    replaceRoles: (membershipId: string, grants: readonly RoleGrant[]): Promise<MembershipRoleRow[] | undefined> =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const [membership] = await tables.projectMemberships.find({ id: membershipId }, { forUpdate: true });
        if (!membership) return undefined;
        const roles = roleRows(membershipId, grants);
        await tables.membershipRoles.delete({ membershipId });
        await tables.membershipRoles.insertMany(roles);
        return roles;
      }),
  };
});
