import { accessTables, type MembershipRoleRow, type MembershipRow } from "../../access/tables.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { membershipsRemoved, removedMembership } from "../hooks.js";

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

    /** A project's memberships of users, or of machine identities, oldest first. */
    ofProject: (projectId: string, kind: Principal["kind"]): Promise<MembershipRow[]> =>
      t.projectMemberships.find(kind === "user" ? { projectId, identityId: null } : { projectId, userId: null }, {
        orderBy: [["createdAt", "asc"], ["id", "asc"]],
      }),

    /** The roles of several memberships, each list in assignment order. */
    async rolesOfMany(membershipIds: readonly string[]): Promise<Map<string, MembershipRoleRow[]>> {
      const byMembership = new Map<string, MembershipRoleRow[]>(membershipIds.map((id) => [id, []]));
      if (membershipIds.length === 0) return byMembership;
      for (const role of await t.membershipRoles.find({ membershipId: { in: [...membershipIds] } }, { orderBy: [["createdAt", "asc"]] })) {
        byMembership.get(role.membershipId)?.push(role);
      }
      return byMembership;
    },

    /**
     * Removes memberships with their roles and privileges, in one transaction. Each row is locked
     * first and `decide` sees it as it now is (it may refuse by throwing, and the whole removal
     * is undone). What was removed, with the roles it held; memberships already gone are left out.
     */
    remove: (membershipIds: readonly string[], decide: (membership: MembershipRow, tx: Context) => Promise<void>) =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const removed: { membership: MembershipRow; roles: MembershipRoleRow[] }[] = [];
        for (const id of membershipIds) {
          const [membership] = await tables.projectMemberships.find({ id }, { forUpdate: true });
          if (!membership) continue;
          await decide(membership, tx);
          const roles = await tables.membershipRoles.find({ membershipId: id }, { orderBy: [["createdAt", "asc"]] });
          await tables.membershipRoles.delete({ membershipId: id });
          await tables.identityPrivileges.delete({ projectMembershipId: id });
          await tables.projectMemberships.delete({ id });
          removed.push({ membership, roles });
        }
        if (removed.length) await tx.emit(membershipsRemoved, { memberships: removed.map((r) => removedMembership(r.membership)), at: tx.clock.now().toISOString() });
        return removed;
      }),

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
     * Replaces every role of a membership with what `decide` returns. The membership's row is
     * locked first, so concurrent replacements run one after the other and the last one's roles
     * are what remains — never a mix of both — and `decide` sees the membership as it is while no
     * other change can slip in (it may refuse by throwing; it reads through `tx`). Undefined when
     * the membership is gone.
     */
    replaceRoles: (membershipId: string, decide: (membership: MembershipRow, tx: Context) => Promise<readonly RoleGrant[]>): Promise<MembershipRoleRow[] | undefined> =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const [membership] = await tables.projectMemberships.find({ id: membershipId }, { forUpdate: true });
        if (!membership) return undefined;
        const roles = roleRows(membershipId, await decide(membership, tx));
        await tables.membershipRoles.delete({ membershipId });
        await tables.membershipRoles.insertMany(roles);
        return roles;
      }),
  };
});
