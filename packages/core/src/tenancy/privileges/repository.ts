import { accessTables, type PrivilegeRow } from "../../access/tables.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";

/** A privilege as it is granted: the stored row less what the repository fills in. */
export type NewPrivilege = Omit<PrivilegeRow, "id" | "createdAt" | "updatedAt">;

/** What an update may change. */
export type PrivilegePatch = Partial<Omit<NewPrivilege, "projectMembershipId" | "identityId" | "projectId">>;

/** Identities' additional privileges in projects. */
export const privilegeRepository = defineRepository("privileges", (ctx) => {
  const t = tablesOf(ctx.storage, accessTables);
  return {
    byId: (id: string): Promise<PrivilegeRow | undefined> => t.identityPrivileges.get(id),
    bySlug: (membershipId: string, slug: string): Promise<PrivilegeRow | undefined> =>
      t.identityPrivileges.findOne({ projectMembershipId: membershipId, slug }),

    async create(privilege: NewPrivilege, at: Date): Promise<PrivilegeRow> {
      const row: PrivilegeRow = { id: newId(), ...privilege, createdAt: at.toISOString(), updatedAt: at.toISOString() };
      await t.identityPrivileges.insert(row);
      return row;
    },

    /**
     * Changes a privilege with its row locked: `change` sees the privilege as it is (and may refuse
     * by throwing) and says what to change; it reads through `tx`, the transaction's context.
     * Undefined when the privilege does not exist.
     */
    update: (id: string, at: Date, change: (row: PrivilegeRow, tx: Context) => Promise<PrivilegePatch>): Promise<PrivilegeRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const privileges = tablesOf(tx.storage, accessTables).identityPrivileges;
        const [row] = await privileges.find({ id }, { forUpdate: true });
        if (!row) return undefined;
        const patch = { ...(await change(row, tx)), updatedAt: at.toISOString() };
        await privileges.update({ id }, patch);
        return { ...row, ...patch };
      }),

    delete: async (id: string): Promise<void> => {
      await t.identityPrivileges.delete({ id });
    },
  };
});
