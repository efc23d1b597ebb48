import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";
import { secretTables, type SecretRow, type SecretVersionRow } from "../tables.js";
import type { ProjectCipher } from "../cipher.js";
import { versionOf, type SecretType } from "./model.js";

/** One kind of secret in a folder: the shared ones, or one owner's personal overrides. */
export interface SecretKind {
  type: SecretType;
  ownerId: string;
}

/** Rows of shared secrets and personal overrides with each overridden shared secret left out. */
export function overridden(rows: readonly SecretRow[]): SecretRow[] {
  const personal = new Set(rows.filter((r) => r.type === "personal").map((r) => `${r.folderId}:${r.keyHash}`));
  return rows.filter((r) => r.type === "personal" || !personal.has(`${r.folderId}:${r.keyHash}`));
}

export const secretRepository = defineRepository("secret-manager.secrets", (ctx) => {
  const t = tablesOf(ctx.storage, secretTables);

  /** The shared secrets of some folders and the principal's own personal overrides among them, both. */
  async function withOwn(folderIds: readonly string[], principalId: string | undefined, keyHashes?: readonly string[]): Promise<SecretRow[]> {
    if (folderIds.length === 0 || keyHashes?.length === 0) return [];
    return t.secrets.find({
      folderId: folderIds.length === 1 ? folderIds[0] : { in: folderIds },
      ownerId: principalId ? { in: ["", principalId] } : "",
      ...(keyHashes ? { keyHash: keyHashes.length === 1 ? keyHashes[0] : { in: keyHashes } } : {}),
    });
  }

  return {
    /**
     * The secrets a principal sees in some folders: the shared ones, each replaced by the
     * principal's own personal override of the same name where it has one. `keyHashes` narrows to
     * some names. During a data-key rotation overrides are matched by name only with the cipher's
     * help (`current`): rows the rotation has not reached carry the old key's blind index.
     */
    visible: async (
      folderIds: readonly string[],
      principalId: string | undefined,
      keyHashes?: readonly string[],
      cipher?: Pick<ProjectCipher, "current">,
    ): Promise<SecretRow[]> => {
      const rows = await withOwn(folderIds, principalId, keyHashes);
      return overridden(cipher ? cipher.current(rows) : rows);
    },

    withOwn,

    /** The shared secrets of some folders only. */
    shared: (folderIds: readonly string[]): Promise<SecretRow[]> =>
      folderIds.length ? t.secrets.find({ folderId: folderIds.length === 1 ? folderIds[0] : { in: [...folderIds] }, ownerId: "" }) : Promise.resolve([]),

    /** Every secret of some folders, shared ones and everyone's personal overrides. */
    inFolders: (folderIds: readonly string[]): Promise<SecretRow[]> =>
      folderIds.length ? t.secrets.find({ folderId: { in: [...folderIds] } }) : Promise.resolve([]),

    /**
     * Secrets of one kind in a folder, by blind index. `forUpdate` (inside a transaction): the
     * rows stay locked until it ends, taken in id order — with groups locked in `lockOrder`, every
     * writer takes its locks in one global order, so overlapping batches queue instead of deadlocking.
     */
    ofKind: (folderId: string, keyHashes: readonly string[], kind: SecretKind, options: { forUpdate?: boolean } = {}): Promise<SecretRow[]> =>
      keyHashes.length === 0
        ? Promise.resolve([])
        : t.secrets.find(
            { folderId, keyHash: { in: keyHashes }, type: kind.type, ownerId: kind.ownerId },
            options.forUpdate ? { orderBy: [["id", "asc"]], forUpdate: true } : {},
          ),

    /** Every secret of an environment, of every kind and owner. */
    inEnvironment: (envId: string): Promise<SecretRow[]> => t.secrets.find({ envId }),

    /** A secret by id, wherever it is (the caller checks it may see its project). */
    get: (id: string): Promise<SecretRow | undefined> => t.secrets.get(id),

    /** Earlier states of a secret, newest first, a page of them. */
    versions: (secretId: string, page: { offset: number; limit: number }): Promise<SecretVersionRow[]> =>
      page.limit <= 0 ? Promise.resolve([]) : t.secretVersions.find({ secretId }, { orderBy: [["version", "desc"]], offset: page.offset, limit: page.limit }),

    /** An earlier state of a secret. */
    version: (secretId: string, version: number): Promise<SecretVersionRow | undefined> => t.secretVersions.findOne({ secretId, version }),

    /** In one statement however many there are. */
    insert: (rows: SecretRow[]): Promise<void> => t.secrets.insertMany(rows),

    /**
     * Conditional on the version read: false when another write changed the secret since. Writes
     * name the project, which spares the project stamps a read of the rows (storage/stamp.ts).
     */
    update: async (row: SecretRow, patch: Partial<SecretRow>): Promise<boolean> =>
      (await t.secrets.update({ id: row.id, projectId: row.projectId, version: row.version }, patch)) === 1,

    /**
     * Many updates in as few statements as the database takes, each conditional on the version
     * read: false when another write changed any of them since (call it in a transaction, which
     * the caller then fails, so that none is written).
     */
    updateMany: async (changes: readonly { row: SecretRow; patch: Partial<SecretRow> }[]): Promise<boolean> =>
      changes.length === 0 ||
      (await t.secrets.updateMany(changes.map(({ row, patch }) => ({ id: row.id, expect: { version: row.version, projectId: row.projectId }, patch })))) === changes.length,

    /** Files states that updates replaced. */
    fileVersions: (versions: SecretVersionRow[]): Promise<void> => t.secretVersions.insertMany(versions),

    /**
     * Deletes secrets, filing each one's last state with the earlier ones (a deleted secret's
     * history stays complete), and the personal overrides of `sharedNames` (blind indexes of
     * deleted shared secrets, by folder), which would override nothing.
     */
    delete: (rows: readonly SecretRow[], sharedNames: ReadonlyMap<string, readonly string[]>): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        await w.secretVersions.insertMany(rows.map(versionOf));
        // Naming the projects spares the project stamps a read of the rows (storage/stamp.ts).
        const projectId = { in: [...new Set(rows.map((r) => r.projectId))] };
        await w.secrets.delete({ projectId, id: { in: rows.map((r) => r.id) } });
        for (const [folderId, hashes] of sharedNames) await w.secrets.delete({ projectId, folderId, type: "personal", keyHash: { in: [...hashes] } });
      }),

    /**
     * Removes one principal's personal overrides in a project with their history: its membership
     * is gone, and an override left behind would speak for it again were it ever re-added.
     */
    removePersonalOf: (projectId: string, ownerId: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, secretTables);
        const owned = { projectId, type: "personal", ownerId };
        await w.secretVersions.delete(owned);
        await w.secrets.delete(owned);
      }),
  };
});

export type SecretRepository = ReturnType<typeof secretRepository.create>;
