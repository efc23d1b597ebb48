import type { Where } from "../storage/table.js";
import type { AuditRow, AuditSegmentRow } from "./tables.js";

/**
 * The query route's filters applied to segments' entries, which the database cannot look into: it
 * picks the segments that may hold a match (`segmentWhere`), and `matchesFilter` decides each
 * entry as the database decides a row (see `auditRepository.find`).
 */

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

/** How far a segment's time range is widened when dates are compared as text (a filter without milliseconds). */
const SLACK_MS = 1000;

const instant = (text: string): number | undefined => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};

/**
 * The filter with its dates as the stored form writes instants (ISO 8601, UTC, milliseconds), so
 * comparing them as text (SQLite) or as instants (PostgreSQL, `matchesFilter`) agrees; a date that
 * does not parse is left as given.
 */
export function normalizedDates(filter: AuditRowFilter): AuditRowFilter {
  const iso = (text: string | undefined) => {
    const at = text === undefined ? undefined : instant(text);
    return at === undefined ? text : new Date(at).toISOString();
  };
  return { ...filter, startDate: iso(filter.startDate), endDate: iso(filter.endDate) };
}

/** Segments that may hold an entry matching `filter`: a superset, decided again entry by entry. */
export function segmentWhere(filter: AuditRowFilter): Where<AuditSegmentRow> {
  const where: Where<AuditSegmentRow> = {};
  if (filter.orgId !== undefined) where.orgId = filter.orgId;
  if (filter.projectId !== undefined) where.projectId = filter.projectId;
  const start = filter.startDate === undefined ? undefined : instant(filter.startDate);
  const end = filter.endDate === undefined ? undefined : instant(filter.endDate);
  if (start !== undefined) where.lastAt = { gte: new Date(start - SLACK_MS).toISOString() };
  if (end !== undefined) where.firstAt = { lte: new Date(end + SLACK_MS).toISOString() };
  return where;
}

/** A date bound as the database applies it: as an instant when it reads as one, else as text. */
function within(createdAt: string, bound: string, side: "start" | "end"): boolean {
  const at = instant(bound);
  if (at === undefined) return side === "start" ? createdAt >= bound : createdAt <= bound;
  const ms = Date.parse(createdAt);
  return side === "start" ? ms >= at : ms <= at;
}

export function matchesFilter(row: AuditRow, filter: AuditRowFilter): boolean {
  if (filter.orgId !== undefined && row.orgId !== filter.orgId) return false;
  if (filter.projectId !== undefined && row.projectId !== filter.projectId) return false;
  if (filter.environment !== undefined && row.environment !== filter.environment) return false;
  if (filter.actorType !== undefined && row.actorType !== filter.actorType) return false;
  if (filter.actorId !== undefined && row.actorId !== filter.actorId) return false;
  if (filter.eventTypes !== undefined && !filter.eventTypes.includes(row.eventType)) return false;
  if (filter.secretPath !== undefined && row.secretPath !== filter.secretPath) return false;
  // Blind indexes are lower-case hex, as the database's case-insensitive `contains` compares them.
  if (filter.secretKeyIndex !== undefined && !(row.secretKeyIndex ?? "").toLowerCase().includes(` ${filter.secretKeyIndex.toLowerCase()} `)) return false;
  if (filter.startDate !== undefined && !within(row.createdAt, filter.startDate, "start")) return false;
  if (filter.endDate !== undefined && !within(row.createdAt, filter.endDate, "end")) return false;
  return true;
}

/** The query route's order: newest first, ids (time-ordered within a node) breaking ties. */
export const newestFirst = (a: AuditRow, b: AuditRow): number =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
