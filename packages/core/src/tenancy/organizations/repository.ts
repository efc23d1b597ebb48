import type { OrgRole } from "../../access/org-access.js";
import { accessTables, type OrgMembershipRow } from "../../access/tables.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId, randomAlphanumeric, slugify } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { membershipsRemoved, removedMembership } from "../hooks.js";
import { tenancyTables, type OrganizationRow, type UserRow } from "../tables.js";

export const organizationRepository = defineRepository("organizations", (ctx) => {
  const access = tablesOf(ctx.storage, accessTables);
  return {
    /** An organization with its data key, in one transaction. */
    create: (name: string): Promise<OrganizationRow> =>
      ctx.withTransaction(async (tx) => {
        const t = tablesOf(tx.storage, tenancyTables);
        const now = tx.clock.now();
        const base = slugify(name, 48);
        // A taken slug gets a random suffix; the unique index stays the final guard against races.
        const taken = await t.organizations.findOne({ slug: base });
        const org: OrganizationRow = {
          id: newId(),
          name,
          slug: taken ? `${base}-${randomAlphanumeric(6).toLowerCase()}` : base,
          createdAt: now.toISOString(),
          updatedAt: now.toISOString(),
        };
        await t.organizations.insert(org);
        await tx.keys.createDataKey(tx.storage, { orgId: org.id }, "organization", tx.clock.now());
        return org;
      }),

    /**
     * Inside a transaction: holds the organization's row until it ends, so an organization-wide
     * read-modify-write (the next position of a proxied service) is serialized.
     */
    lock: async (orgId: string): Promise<void> => {
      await tablesOf(ctx.storage, tenancyTables).organizations.find({ id: orgId }, { forUpdate: true });
    },

    /** How many admins the organization has, users and machine identities together. */
    countAdmins: async (orgId: string): Promise<number> =>
      (await access.orgMemberships.count({ orgId, role: "admin" })) + (await access.identities.count({ orgId, role: "admin" })),

    /** The organization's users with their memberships, by e-mail. */
    async members(orgId: string): Promise<{ membership: OrgMembershipRow; user: UserRow }[]> {
      const memberships = await access.orgMemberships.find({ orgId });
      if (memberships.length === 0) return [];
      const users = await tablesOf(ctx.storage, tenancyTables).users.find({ id: { in: memberships.map((m) => m.userId) } });
      const byId = new Map(users.map((u) => [u.id, u]));
      return memberships
        .flatMap((membership) => {
          const user = byId.get(membership.userId);
          return user ? [{ membership, user }] : [];
        })
        .sort((a, b) => (a.user.email < b.user.email ? -1 : a.user.email > b.user.email ? 1 : 0));
    },

    member: (orgId: string, membershipId: string): Promise<OrgMembershipRow | undefined> => access.orgMemberships.findOne({ id: membershipId, orgId }),

    /**
     * Changes a membership's role with its row locked; `decide` sees it as it now is and may refuse
     * by throwing. Undefined when the membership is gone.
     */
    changeRole: (membershipId: string, role: OrgRole, decide: (tx: Context, current: OrgMembershipRow) => Promise<void>): Promise<OrgMembershipRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, accessTables);
        const [current] = await w.orgMemberships.find({ id: membershipId }, { forUpdate: true });
        if (!current) return undefined;
        await decide(tx, current);
        await w.orgMemberships.update({ id: membershipId }, { role, updatedAt: tx.clock.now().toISOString() });
        return w.orgMemberships.get(membershipId);
      }),

    /**
     * Removes a user from an organization with its memberships of the organization's projects, in
     * one transaction; `decide` sees the membership locked and may refuse by throwing. The row as it
     * was; undefined when it is gone.
     */
    removeMember: (membershipId: string, decide: (tx: Context, current: OrgMembershipRow) => Promise<void>): Promise<OrgMembershipRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, accessTables);
        const [current] = await w.orgMemberships.find({ id: membershipId }, { forUpdate: true });
        if (!current) return undefined;
        await decide(tx, current);
        const projectIds = (await w.projects.find({ orgId: current.orgId })).map((p) => p.id);
        const memberships = projectIds.length ? await w.projectMemberships.find({ userId: current.userId, projectId: { in: projectIds } }) : [];
        if (memberships.length) {
          const ids = memberships.map((m) => m.id);
          await w.membershipRoles.delete({ membershipId: { in: ids } });
          await w.projectMemberships.delete({ id: { in: ids } });
          await tx.emit(membershipsRemoved, { memberships: memberships.map(removedMembership), at: tx.clock.now().toISOString() });
        }
        await w.orgMemberships.delete({ id: membershipId });
        return current;
      }),

    async addMember(orgId: string, userId: string, role: OrgRole): Promise<OrgMembershipRow> {
      const now = ctx.clock.now().toISOString();
      const row: OrgMembershipRow = { id: newId(), orgId, userId, role, createdAt: now, updatedAt: now };
      await access.orgMemberships.insert(row);
      return row;
    },
  };
});
