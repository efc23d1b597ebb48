import { segmentRows } from "../audit/segments.js";
import { auditTables, type AuditRow } from "../audit/tables.js";
import { tablesOf, type Storage } from "../storage/table.js";

/**
 * Every stored audit entry as a row, whether it was written as a row of its own (a change) or in a
 * segment (a flush of reads): what tests count and look into. By chain, then seq.
 */
export async function storedAuditRows(storage: Storage, chainId?: string): Promise<AuditRow[]> {
  const t = tablesOf(storage, auditTables);
  const where = chainId === undefined ? {} : { chainId };
  const rows = await t.auditEntries.find(where);
  for (const segment of await t.auditSegments.find(where)) rows.push(...segmentRows(segment));
  return rows.sort((a, b) => (a.chainId < b.chainId ? -1 : a.chainId > b.chainId ? 1 : a.seq - b.seq));
}
