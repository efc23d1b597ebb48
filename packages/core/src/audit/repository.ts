import { defineRepository } from "../kernel/context.js";
import { tablesOf, type Where } from "../storage/table.js";
import type { AuditHeadRow, AuditRow } from "./tables.js";
import { auditTables } from "./tables.js";

/** Filters the query route applies, already authorized and translated (secret key → blind index). */
export interface AuditRowFilter {
  orgId?: string;
  projectId?: string;
  environment?: string;
  actorType?: string;
  actorId?: string;
  eventTypes?: readonly string[];
  secretPath?: string;
  secretKeyIndex?: string;
  startDate?: string;
  endDate?: string;
}

/** Every query and write of the audit tables. Appends lock the chain head; nothing else changes an entry. */
export const auditRepository = defineRepository("audit", (ctx) => {
  const t = tablesOf(ctx.storage, auditTables);
  return {
    /** The head, locked until the transaction ends (appends to one chain are serialized across nodes). */
    lockHead: async (chainId: string): Promise<AuditHeadRow | undefined> => (await t.auditChainHeads.find({ id: chainId }, { forUpdate: true }))[0],
    head: (chainId: string) => t.auditChainHeads.get(chainId),
    heads: () => t.auditChainHeads.find({}, { orderBy: [["id", "asc"]] }),
    createHead: (row: AuditHeadRow) => t.auditChainHeads.insert(row),
    moveHead: (chainId: string, seq: number, hash: string, updatedAt: string) => t.auditChainHeads.update({ id: chainId }, { seq, hash, updatedAt }),
    /**
     * In statements of fixed sizes (256, 64, 16, 4, 1 rows): the adapters keep each size's
     * compiled SQL, where a statement of a new size would be compiled anew — most of an append's cost.
     */
    async insertEntries(rows: AuditRow[]): Promise<void> {
      let at = 0;
      for (const size of [256, 64, 16, 4, 1]) {
        while (rows.length - at >= size) {
          await t.auditEntries.insertMany(rows.slice(at, at + size));
          at += size;
        }
      }
    },
    /** A chain's entries by seq, as stored (a reordered or duplicated row shows up here). */
    chainEntries: (chainId: string, fromSeq: number, toSeq: number | undefined, limit: number) =>
      t.auditEntries.find(
        { chainId, seq: { gte: fromSeq }, ...(toSeq === undefined ? {} : { $or: [{ seq: { lte: toSeq } }] }) },
        { orderBy: [["seq", "asc"], ["id", "asc"]], limit },
      ),
    chainIds: async (): Promise<string[]> => (await t.auditChainHeads.find({}, { orderBy: [["id", "asc"]] })).map((h) => h.id),
    latestCheckpoint: async (chainId: string) => (await t.auditCheckpoints.find({ chainId }, { orderBy: [["seq", "desc"]], limit: 1 }))[0],
    checkpoints: (chainId: string) => t.auditCheckpoints.find({ chainId }, { orderBy: [["seq", "asc"]] }),
    insertCheckpoint: (row: Parameters<typeof t.auditCheckpoints.insert>[0]) => t.auditCheckpoints.insert(row),
    signingKey: (id: string) => t.auditSigningKeys.get(id),
    /** Newest first, as Infisical answers. */
    find(filter: AuditRowFilter, offset: number, limit: number): Promise<AuditRow[]> {
      const where: Where<AuditRow> = {};
      if (filter.orgId !== undefined) where.orgId = filter.orgId;
      if (filter.projectId !== undefined) where.projectId = filter.projectId;
      if (filter.environment !== undefined) where.environment = filter.environment;
      if (filter.actorType !== undefined) where.actorType = filter.actorType;
      if (filter.actorId !== undefined) where.actorId = filter.actorId;
      if (filter.eventTypes !== undefined) where.eventType = filter.eventTypes.length === 1 ? filter.eventTypes[0] : { in: filter.eventTypes };
      if (filter.secretPath !== undefined) where.secretPath = filter.secretPath;
      if (filter.secretKeyIndex !== undefined) where.secretKeyIndex = { contains: ` ${filter.secretKeyIndex} ` };
      // One condition per column: the end of a range goes into an $or group of one (ANDed with the rest).
      if (filter.startDate !== undefined) where.createdAt = { gte: filter.startDate };
      if (filter.endDate !== undefined) {
        if (where.createdAt === undefined) where.createdAt = { lte: filter.endDate };
        else where.$or = [{ createdAt: { lte: filter.endDate } }];
      }
      return t.auditEntries.find(where, { orderBy: [["createdAt", "desc"], ["id", "desc"]], offset, limit });
    },
  };
});
