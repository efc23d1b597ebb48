import { defineRepository } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { tablesOf } from "../../storage/table.js";
import { openInputs, sealInputs } from "../sealing.js";
import { dynamicSecretTables, type DynamicSecretRow } from "../tables.js";

export type DynamicSecretPatch = Partial<Pick<DynamicSecretRow, "name" | "defaultTtl" | "maxTtl" | "metadata" | "sealedInputs" | "sealedWith">>;

/** Every query on dynamic secrets, and their cascades onto leases. */
export const dynamicSecretRepository = defineRepository("dynamic-secrets", (ctx) => {
  const t = tablesOf(ctx.storage, dynamicSecretTables);

  /** Marks secrets gone and every lease of theirs due for revocation now (the expiry job revokes them, then removes the secrets). */
  const retire = async (rows: readonly DynamicSecretRow[], at: string) => {
    if (rows.length === 0) return;
    await ctx.withTransaction(async (tx) => {
      const w = tablesOf(tx.storage, dynamicSecretTables);
      const ids = rows.map((row) => row.id);
      await w.dynamicSecrets.update({ id: { in: ids } }, { deletedAt: at, updatedAt: at });
      await w.dynamicSecretLeases.update(
        { dynamicSecretId: { in: ids }, status: "active" },
        { status: "revoking", statusDetails: "Its dynamic secret's folder was removed", nextAttemptAt: at, updatedAt: at },
      );
    });
  };

  return {
    byId: (id: string) => t.dynamicSecrets.get(id),
    /** A live secret by name in a folder. */
    byName: (folderId: string, name: string) => t.dynamicSecrets.findOne({ folderId, name, deletedAt: null }),
    /** A folder's live secrets by name. */
    inFolder: (folderId: string) => t.dynamicSecrets.find({ folderId, deletedAt: null }, { orderBy: [["name", "asc"]] }),

    create: (row: DynamicSecretRow) => t.dynamicSecrets.insert(row),

    /** Applies a patch and bumps the version; undefined when the secret is gone meanwhile. */
    async update(id: string, patch: DynamicSecretPatch): Promise<DynamicSecretRow | undefined> {
      return ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        const [row] = await w.dynamicSecrets.find({ id, deletedAt: null }, { forUpdate: true });
        if (!row) return undefined;
        const next = { ...row, ...patch, version: row.version + 1, updatedAt: tx.clock.now().toISOString() };
        await w.dynamicSecrets.update({ id }, next);
        return next;
      });
    },

    /** Removes a secret and its lease records in one transaction. */
    remove: (id: string) =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        await w.dynamicSecretLeases.delete({ dynamicSecretId: id });
        await w.dynamicSecrets.delete({ id });
      }),

    /** The cascade of folders the secret manager removed (src/hooks.ts). */
    retireInFolders: async (folderIds: readonly string[], at: string) =>
      retire(await t.dynamicSecrets.find({ folderId: { in: [...folderIds] }, deletedAt: null }), at),
    /** The cascade of an environment the secret manager purged (src/hooks.ts). */
    retireInEnvironment: async (envId: string, at: string) => retire(await t.dynamicSecrets.find({ envId, deletedAt: null }), at),

    /**
     * The dynamic-secrets part of a project deletion (tenancy's `projectRemoved`). The project's
     * data key goes with it, so leases still live at a provider could never be revoked: the
     * deletion is refused (and rolled back) while there are any.
     */
    async removeProject(projectId: string): Promise<void> {
      const live = await t.dynamicSecretLeases.count({ projectId, status: { ne: "revoked" } });
      if (live > 0) {
        throw new BadRequestError(
          `The project has ${live} dynamic-secret lease${live === 1 ? "" : "s"} not yet revoked; revoke them (or delete its dynamic secrets) first`,
        );
      }
      await t.dynamicSecretLeases.delete({ projectId });
      await t.dynamicSecrets.delete({ projectId });
    },

    /** Retired secrets none of whose leases still needs revoking: the expiry job removes them. */
    async retiredWithoutLeases(limit: number): Promise<DynamicSecretRow[]> {
      const retired = await t.dynamicSecrets.find({ deletedAt: { ne: null } }, { orderBy: [["deletedAt", "asc"]], limit });
      const done: DynamicSecretRow[] = [];
      for (const row of retired) {
        if ((await t.dynamicSecretLeases.count({ dynamicSecretId: row.id, status: { ne: "revoked" } })) === 0) done.push(row);
      }
      return done;
    },

    /**
     * The rewrap step of `rotate-data-keys`: re-seals the inputs of every dynamic secret of the
     * project sealed under `fromKeyId` with `toKeyId`, in one transaction. Returns how many moved.
     */
    async resealInputs(projectId: string, fromKeyId: string, toKeyId: string): Promise<number> {
      await Promise.all([ctx.keys.dataKey(ctx.storage, fromKeyId), ctx.keys.dataKey(ctx.storage, toKeyId)]);
      return ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, dynamicSecretTables);
        const rows = await w.dynamicSecrets.find({ projectId, sealedWith: fromKeyId }, { forUpdate: true });
        for (const row of rows) {
          const sealedInputs = await sealInputs(tx, toKeyId, row.id, await openInputs(tx, row));
          await w.dynamicSecrets.update({ id: row.id, sealedWith: fromKeyId }, { sealedInputs, sealedWith: toKeyId });
        }
        return rows.length;
      });
    },
  };
});
