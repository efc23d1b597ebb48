import { defineRepository, type Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf, type Where } from "../../storage/table.js";
import type { GeneratedMaterial } from "../algorithms/material.js";
import { kmsTables, type CmekKeyRow, type CmekKeyVersionRow } from "../tables.js";
import { openMaterial, sealMaterial } from "./sealing.js";

export interface KeyListQuery {
  readonly offset: number;
  readonly limit: number;
  readonly direction: "asc" | "desc";
  readonly search?: string;
}

/** A key's patch as update and rotation write it. */
export type KeyPatch = Partial<Pick<CmekKeyRow, "name" | "description" | "isDisabled" | "rotationIntervalDays" | "nextRotationAt">>;

/** Every query on KMS keys and their versions, and the multi-row changes (create, rotate, delete, reseal). */
export const cmekRepository = defineRepository("kms-keys", (ctx) => {
  const t = tablesOf(ctx.storage, kmsTables);

  const versionRow = async (
    at: Context,
    key: CmekKeyRow,
    version: number,
    dataKeyId: string,
    material: GeneratedMaterial,
  ): Promise<CmekKeyVersionRow> => ({
    id: newId(),
    keyId: key.id,
    projectId: key.projectId,
    version,
    sealedMaterial: await sealMaterial(at, dataKeyId, key.id, version, material.secret),
    sealedWith: dataKeyId,
    publicKeyPem: material.publicKeyPem,
    createdAt: at.clock.now().toISOString(),
  });

  // Unwrapped before a transaction opens, so sealing inside it waits on nothing.
  const warm = (dataKeyId: string) => ctx.keys.dataKey(ctx.storage, dataKeyId);

  return {
    /** The KMS part of a project deletion (tenancy's `projectRemoved`): every key with its versions. */
    async removeProject(projectId: string): Promise<void> {
      await t.cmekKeyVersions.delete({ projectId });
      await t.cmekKeys.delete({ projectId });
    },

    byId: (id: string) => t.cmekKeys.get(id),
    byName: (projectId: string, name: string) => t.cmekKeys.findOne({ projectId, name }),

    async list(projectId: string, query: KeyListQuery): Promise<{ rows: CmekKeyRow[]; totalCount: number }> {
      const where: Where<CmekKeyRow> = query.search ? { projectId, name: { contains: query.search } } : { projectId };
      const [rows, totalCount] = await Promise.all([
        t.cmekKeys.find(where, { orderBy: [["name", query.direction]], offset: query.offset, limit: query.limit }),
        t.cmekKeys.count(where),
      ]);
      return { rows, totalCount };
    },

    /** The key and its first version, sealed under `dataKeyId`, in one transaction. */
    async create(key: CmekKeyRow, dataKeyId: string, material: GeneratedMaterial): Promise<void> {
      const first = await versionRow(ctx, key, key.version, dataKeyId, material);
      await ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, kmsTables);
        await tables.cmekKeys.insert(key);
        await tables.cmekKeyVersions.insert(first);
      });
    },

    async update(id: string, patch: KeyPatch): Promise<CmekKeyRow | undefined> {
      await t.cmekKeys.update({ id }, { ...patch, updatedAt: ctx.clock.now().toISOString() });
      return t.cmekKeys.get(id);
    },

    /**
     * Adds the next version and makes it primary. The key row is locked for the transaction, so
     * two rotations of one key (two requests, or a request and the scheduler) make two versions,
     * one after the other, never the same number twice.
     */
    async rotate(keyId: string, dataKeyId: string, material: GeneratedMaterial, nextRotationAt: string | null): Promise<CmekKeyRow | undefined> {
      await warm(dataKeyId);
      return ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, kmsTables);
        const [key] = await tables.cmekKeys.find({ id: keyId }, { forUpdate: true });
        if (!key) return undefined;
        const version = key.version + 1;
        await tables.cmekKeyVersions.insert(await versionRow(tx, key, version, dataKeyId, material));
        const updatedAt = tx.clock.now().toISOString();
        await tables.cmekKeys.update({ id: keyId }, { version, nextRotationAt, updatedAt });
        return { ...key, version, nextRotationAt, updatedAt };
      });
    },

    remove: (id: string) =>
      ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, kmsTables);
        await tables.cmekKeyVersions.delete({ keyId: id });
        return (await tables.cmekKeys.delete({ id })) > 0;
      }),

    version: (keyId: string, version: number) => t.cmekKeyVersions.findOne({ keyId, version }),

    /** Every version, newest first: verification tries the primary, then older material. */
    versions: (keyId: string) => t.cmekKeyVersions.find({ keyId }, { orderBy: [["version", "desc"]] }),

    /** The version's secret material, opened. Never logged, never answered. */
    open: (row: CmekKeyVersionRow) => openMaterial(ctx, row.sealedWith, row.keyId, row.version, row.sealedMaterial),

    /** Enabled keys whose scheduled rotation is due at `now`. */
    dueForRotation: (now: string) =>
      t.cmekKeys.find({ nextRotationAt: { lte: now }, isDisabled: false }, { orderBy: [["nextRotationAt", "asc"], ["id", "asc"]], limit: 100 }),

    /**
     * The rewrap step of `rotate-data-keys`: re-seals every key version of the project sealed
     * under `fromKeyId` with `toKeyId`, in one transaction. Returns how many versions moved.
     */
    async resealKeys(projectId: string, fromKeyId: string, toKeyId: string): Promise<number> {
      await Promise.all([warm(fromKeyId), warm(toKeyId)]);
      return ctx.withTransaction(async (tx) => {
        const tables = tablesOf(tx.storage, kmsTables);
        const rows = await tables.cmekKeyVersions.find({ projectId, sealedWith: fromKeyId }, { forUpdate: true });
        for (const row of rows) {
          const secret = await openMaterial(tx, fromKeyId, row.keyId, row.version, row.sealedMaterial);
          const sealedMaterial = await sealMaterial(tx, toKeyId, row.keyId, row.version, secret);
          await tables.cmekKeyVersions.update({ id: row.id, sealedWith: fromKeyId }, { sealedMaterial, sealedWith: toKeyId });
        }
        return rows.length;
      });
    },
  };
});
