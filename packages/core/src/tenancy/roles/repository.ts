import { accessTables, type CustomRoleRow } from "../../access/tables.js";
import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";

/** What a custom role's update may change. */
export type CustomRolePatch = Partial<Pick<CustomRoleRow, "slug" | "name" | "description" | "permissions">>;

/** Custom project roles (built-in roles are not stored). */
export const roleRepository = defineRepository("roles", (ctx) => {
  const t = tablesOf(ctx.storage, accessTables);
  return {
    /** Oldest first. */
    customOf: (projectId: string): Promise<CustomRoleRow[]> => t.projectRoles.find({ projectId }, { orderBy: [["createdAt", "asc"]] }),
    custom: (projectId: string, id: string): Promise<CustomRoleRow | undefined> => t.projectRoles.findOne({ id, projectId }),
    bySlug: (projectId: string, slug: string): Promise<CustomRoleRow | undefined> => t.projectRoles.findOne({ projectId, slug }),

    async create(role: Pick<CustomRoleRow, "projectId" | "slug" | "name" | "description" | "permissions">): Promise<CustomRoleRow> {
      const now = ctx.clock.now().toISOString();
      const row: CustomRoleRow = { id: newId(), ...role, createdAt: now, updatedAt: now };
      await t.projectRoles.insert(row);
      return row;
    },

    /**
     * Changes a custom role with the row locked: `change` sees the role as it is (and may refuse
     * by throwing) and says what to change; it reads through `tx`, the transaction's context.
     * Undefined when the role does not exist.
     */
    update: (projectId: string, id: string, change: (role: CustomRoleRow, tx: Context) => Promise<CustomRolePatch>): Promise<CustomRoleRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const roles = tablesOf(tx.storage, accessTables).projectRoles;
        const [role] = await roles.find({ id, projectId }, { forUpdate: true });
        if (!role) return undefined;
        const patch = { ...(await change(role, tx)), updatedAt: tx.clock.now().toISOString() };
        await roles.update({ id: role.id }, patch);
        return { ...role, ...patch };
      }),

    /**
     * Deletes a custom role unless a membership holds it: "in-use" then, and nothing changes.
     * Undefined when the role does not exist.
     */
    deleteUnused: (projectId: string, id: string): Promise<CustomRoleRow | "in-use" | undefined> =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, accessTables);
        const [role] = await tables.projectRoles.find({ id, projectId }, { forUpdate: true });
        if (!role) return undefined;
        if ((await tables.membershipRoles.count({ customRoleId: role.id })) > 0) return "in-use";
        await tables.projectRoles.delete({ id: role.id });
        return role;
      }),
  };
});
