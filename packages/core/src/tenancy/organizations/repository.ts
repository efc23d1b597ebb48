import type { OrgRole } from "../../access/org-access.js";
import { accessTables, type OrgMembershipRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId, randomAlphanumeric, slugify } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { tenancyTables, type OrganizationRow } from "../tables.js";

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

    async addMember(orgId: string, userId: string, role: OrgRole): Promise<OrgMembershipRow> {
      const now = ctx.clock.now().toISOString();
      const row: OrgMembershipRow = { id: newId(), orgId, userId, role, createdAt: now, updatedAt: now };
      await access.orgMemberships.insert(row);
      return row;
    },
  };
});
