import type { AuditRow, AuditSegmentRow } from "./tables.js";

/**
 * A flush's entries of one chain, stored as one row (`audit_segments`) instead of a row each.
 *
 * Why: a read's entry is ~1 KB as a row of its own, and writing those bytes (to the WAL, then the
 * database file) cost more CPU than the read itself measured without audit (issue #19). The
 * entries of one flush repeat nearly everything (chain, project, actor, address, user agent,
 * often the very sealed metadata), so a segment keeps each distinct value once and each entry as
 * references to them: ~170 bytes an entry.
 *
 * Nothing about an entry changes: it keeps its id, seq, time, fields, sealed metadata and hash,
 * and decodes to exactly the row it would have had. `seq` is the segment's `firstSeq` plus the
 * entry's position, and `prevHash` the hash of the entry before it (the segment's `prevHash` for
 * its first), so an entry edited, removed or moved inside a segment no longer hashes to its
 * stored hash and `verify` names it as it names a tampered row.
 *
 * Body: `{"v":1,"d":[distinct values],"e":[[id, createdAt, ref × 13, count, hash], …]}`, where a
 * ref is an index into `d` or null. Refs, in order: orgId, projectId, environment, secretPath,
 * actorType, actorId, actorName, eventType, outcome, ipAddress, userAgent, metadata,
 * secretKeyIndex.
 */

const VERSION = 1;
const REFS = 13;
const WIDTH = REFS + 4;

/** The fields a segment keeps per entry (its chain, seq and prevHash come from the segment). */
export type SegmentEntry = Omit<AuditRow, "chainId" | "seq" | "prevHash">;

export class SegmentBuilder {
  private readonly values: string[] = [];
  private readonly refs = new Map<string, number>();
  private readonly entries: unknown[][] = [];
  private minAt = "";
  private maxAt = "";
  private lastHash = "";

  constructor(
    private readonly chainId: string,
    private readonly firstSeq: number,
    private readonly prevHash: string,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  add(e: SegmentEntry): void {
    this.entries.push([
      e.id,
      e.createdAt,
      this.ref(e.orgId),
      this.ref(e.projectId),
      this.ref(e.environment),
      this.ref(e.secretPath),
      this.ref(e.actorType),
      this.ref(e.actorId),
      this.ref(e.actorName),
      this.ref(e.eventType),
      this.ref(e.outcome),
      this.ref(e.ipAddress),
      this.ref(e.userAgent),
      this.ref(e.metadata),
      this.ref(e.secretKeyIndex),
      e.count,
      e.hash,
    ]);
    if (this.minAt === "" || e.createdAt < this.minAt) this.minAt = e.createdAt;
    if (e.createdAt > this.maxAt) this.maxAt = e.createdAt;
    this.lastHash = e.hash;
  }

  /** The segment's row; `orgId` and `projectId` are the chain's (every entry of a chain has the same). */
  row(id: string, orgId: string | null, projectId: string | null): AuditSegmentRow {
    return {
      id,
      chainId: this.chainId,
      firstSeq: this.firstSeq,
      lastSeq: this.firstSeq + this.entries.length - 1,
      orgId,
      projectId,
      firstAt: this.minAt,
      lastAt: this.maxAt,
      prevHash: this.prevHash,
      hash: this.lastHash,
      entries: JSON.stringify({ v: VERSION, d: this.values, e: this.entries }),
    };
  }

  private ref(value: string | null): number | null {
    if (value === null) return null;
    let at = this.refs.get(value);
    if (at === undefined) {
      at = this.values.length;
      this.values.push(value);
      this.refs.set(value, at);
    }
    return at;
  }
}

const isText = (value: unknown): value is string => typeof value === "string";

/**
 * The rows a stored segment holds, in the order stored. A body that does not decode (edited by
 * hand) gives one row whose metadata cannot be opened, so `verify` reports the segment's first
 * seq as unreadable instead of skipping what it held.
 */
export function segmentRows(segment: AuditSegmentRow): AuditRow[] {
  const decoded = decodeBody(segment.entries);
  if (decoded === undefined) return [unreadableRow(segment)];
  const { values, entries } = decoded;
  const text = (ref: unknown): string | null | undefined =>
    ref === null ? null : typeof ref === "number" && Number.isInteger(ref) && ref >= 0 && ref < values.length ? values[ref] : undefined;
  const rows: AuditRow[] = [];
  let prevHash = segment.prevHash;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!Array.isArray(e) || e.length !== WIDTH || !isText(e[0]) || !isText(e[1]) || typeof e[15] !== "number" || !isText(e[16])) return [unreadableRow(segment)];
    const fields: (string | null)[] = [];
    for (let r = 0; r < REFS; r++) {
      const value = text(e[2 + r]);
      if (value === undefined) return [unreadableRow(segment)];
      fields.push(value);
    }
    const [orgId, projectId, environment, secretPath, actorType, actorId, actorName, eventType, outcome, ipAddress, userAgent, metadata, secretKeyIndex] = fields;
    if (actorType === null || eventType === null || outcome === null || metadata === null) return [unreadableRow(segment)];
    rows.push({
      id: e[0],
      chainId: segment.chainId,
      seq: segment.firstSeq + i,
      createdAt: e[1],
      orgId,
      projectId,
      environment,
      secretPath,
      actorType,
      actorId,
      actorName,
      eventType,
      outcome,
      ipAddress,
      userAgent,
      metadata,
      secretKeyIndex,
      count: e[15],
      prevHash,
      hash: e[16],
    });
    prevHash = e[16];
  }
  return rows;
}

function decodeBody(body: string): { values: string[]; entries: unknown[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { v, d, e } = parsed as Record<string, unknown>;
  if (v !== VERSION || !Array.isArray(d) || !d.every(isText) || !Array.isArray(e) || e.length === 0) return undefined;
  return { values: d, entries: e };
}

function unreadableRow(segment: AuditSegmentRow): AuditRow {
  return {
    id: segment.id,
    chainId: segment.chainId,
    seq: segment.firstSeq,
    createdAt: segment.firstAt,
    orgId: segment.orgId,
    projectId: segment.projectId,
    environment: null,
    secretPath: null,
    actorType: "unknownUser",
    actorId: null,
    actorName: null,
    eventType: "unreadable",
    outcome: "failed",
    ipAddress: null,
    userAgent: null,
    metadata: "",
    secretKeyIndex: null,
    count: 1,
    prevHash: segment.prevHash,
    hash: segment.hash,
  };
}
