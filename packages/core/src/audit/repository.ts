import { defineRepository } from "../kernel/context.js";
import { tablesOf, type Where } from "../storage/table.js";
import { matchesFilter, newestFirst, normalizedDates, segmentWhere, type AuditRowFilter } from "./segment-query.js";
import { segmentRows } from "./segments.js";
import type { AuditHeadRow, AuditRow, AuditSegmentRow } from "./tables.js";
import { auditTables } from "./tables.js";


/** Segments decoded per page of a walk or a query (each holds up to a flush's 1,000 entries). */
const SEGMENT_PAGE = 8;

/**
 * Every query and write of the audit tables. Appends lock the chain head; nothing else changes an
 * entry. Entries live in two tables — a change's as a row, a flush's as a segment (`segments.ts`)
 * — and every read here gives them back as one list of rows, as if each had a row of its own.
 */
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
    insertSegment: (row: AuditSegmentRow) => t.auditSegments.insert(row),
    /**
     * A chain's first `limit` entries from `fromSeq` (to `toSeq`) by seq, as stored: rows and
     * segments' entries merged (a reordered, duplicated or overlapping one shows up here).
     */
    async chainEntries(chainId: string, fromSeq: number, toSeq: number | undefined, limit: number): Promise<AuditRow[]> {
      const upTo = toSeq === undefined ? {} : { $or: [{ seq: { lte: toSeq } }] };
      const rows = await t.auditEntries.find({ chainId, seq: { gte: fromSeq }, ...upTo }, { orderBy: [["seq", "asc"], ["id", "asc"]], limit });
      const inRange = (row: AuditRow) => row.seq >= fromSeq && (toSeq === undefined || row.seq <= toSeq);
      const fromSegments: AuditRow[] = [];
      // Segments hold disjoint runs of seq: once `limit` of their entries are in hand, later ones come after them all.
      for (let offset = 0; fromSegments.length < limit; offset += SEGMENT_PAGE) {
        const segments = await t.auditSegments.find(
          { chainId, lastSeq: { gte: fromSeq }, ...(toSeq === undefined ? {} : { $or: [{ firstSeq: { lte: toSeq } }] }) },
          { orderBy: [["firstSeq", "asc"], ["id", "asc"]], offset, limit: SEGMENT_PAGE },
        );
        for (const segment of segments) for (const row of segmentRows(segment)) if (inRange(row)) fromSegments.push(row);
        if (segments.length < SEGMENT_PAGE) break;
      }
      if (fromSegments.length === 0) return rows;
      return rows
        .concat(fromSegments)
        .sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit);
    },
    /** The segment holding `seq` and entries after it, if any (retention cuts only between segments). */
    segmentAcross: async (chainId: string, seq: number): Promise<AuditSegmentRow | undefined> =>
      (await t.auditSegments.find({ chainId, firstSeq: { lte: seq }, lastSeq: { gt: seq } }, { limit: 1 }))[0],
    chainIds: async (): Promise<string[]> => (await t.auditChainHeads.find({}, { orderBy: [["id", "asc"]] })).map((h) => h.id),
    latestCheckpoint: async (chainId: string) => (await t.auditCheckpoints.find({ chainId }, { orderBy: [["seq", "desc"]], limit: 1 }))[0],
    checkpoints: (chainId: string) => t.auditCheckpoints.find({ chainId }, { orderBy: [["seq", "asc"]] }),
    insertCheckpoint: (row: Parameters<typeof t.auditCheckpoints.insert>[0]) => t.auditCheckpoints.insert(row),
    signingKey: (id: string) => t.auditSigningKeys.get(id),
    /** Newest first, as Infisical answers: rows found by the database, segments' entries filtered here. */
    async find(given: AuditRowFilter, offset: number, limit: number): Promise<AuditRow[]> {
      const filter = normalizedDates(given);
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
      const wanted = offset + limit;
      const rows = await t.auditEntries.find(where, { orderBy: [["createdAt", "desc"], ["id", "desc"]], limit: wanted });
      // Segments newest first (by their latest entry); once `wanted` entries are in hand and the next
      // segments end before the oldest of them, no later segment can hold one that belongs.
      const matched: AuditRow[] = [];
      const segmentFilter = segmentWhere(filter);
      for (let page = 0; ; page += SEGMENT_PAGE) {
        const segments = await t.auditSegments.find(segmentFilter, { orderBy: [["lastAt", "desc"], ["id", "desc"]], offset: page, limit: SEGMENT_PAGE });
        for (const segment of segments) for (const row of segmentRows(segment)) if (matchesFilter(row, filter)) matched.push(row);
        if (segments.length < SEGMENT_PAGE) break;
        if (matched.length >= wanted) {
          matched.sort(newestFirst);
          matched.length = wanted;
          if (segments[segments.length - 1].lastAt < matched[wanted - 1].createdAt) break;
        }
      }
      if (matched.length === 0) return rows.slice(offset);
      return rows.concat(matched).sort(newestFirst).slice(offset, wanted);
    },
  };
});
