import { isoTime } from "../kernel/clock.js";
import { sameHashContext } from "./chain.js";
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
 * Body: `{"v":1,"t":base,"d":[distinct values],"e":[entry, …]}`. An entry is `[id, at, count, hash,
 * ref × 13]`, or just `[id, at, count, hash]` when its refs are the previous entry's (a run of
 * reads by one caller of one secret: most of a flush). `at` is its `createdAt` as milliseconds
 * after `base`, or the text itself when that would not give the same text back. A ref is an index
 * into `d` or null; refs, in order: orgId, projectId, environment, secretPath, actorType, actorId,
 * actorName, eventType, outcome, ipAddress, userAgent, metadata, secretKeyIndex.
 */

const VERSION = 1;
const REFS = 13;
const HEAD = 4;

/** The fields a segment keeps per entry (its chain, seq and prevHash come from the segment). */
export type SegmentEntry = Omit<AuditRow, "chainId" | "seq" | "prevHash">;

export class SegmentBuilder {
  private readonly values: string[] = [];
  private readonly refs = new Map<string, number>();
  private readonly entries: unknown[][] = [];
  /** The previous entry: a run of entries with its fields is compared with it, not looked up. */
  private last: SegmentEntry | undefined;
  private base = Number.NaN;
  private minAt = "";
  private maxAt = "";
  private lastHash = "";

  constructor(
    private readonly chainId: string,
    private readonly firstSeq: number,
    private readonly prevHash: string,
  ) {}

  add(e: SegmentEntry): void {
    const entry: unknown[] = [e.id, this.at(e.createdAt), e.count, e.hash];
    if (this.last === undefined || !sameContext(this.last, e)) {
      entry.push(
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
      );
    }
    this.last = e;
    this.entries.push(entry);
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
      entries: JSON.stringify({ v: VERSION, t: Number.isNaN(this.base) ? 0 : this.base, d: this.values, e: this.entries }),
    };
  }

  /** Milliseconds after the segment's first time, when they give back exactly the text. */
  private at(createdAt: string): number | string {
    const ms = Date.parse(createdAt);
    if (Number.isNaN(ms) || !isoTextOf(ms, createdAt)) return createdAt;
    if (Number.isNaN(this.base)) this.base = ms;
    return ms - this.base;
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

/** The same 13 fields (the values entries of a run share: the very same strings, from the same caches). */
const sameContext = (a: SegmentEntry, b: SegmentEntry): boolean =>
  sameHashContext(a, b) && a.metadata === b.metadata && a.secretKeyIndex === b.secretKeyIndex;

/** True when `text` is how `toISOString` writes the instant `ms` (entries' times are). */
function isoTextOf(ms: number, text: string): boolean {
  try {
    return isoTime(new Date(ms)) === text;
  } catch {
    return false;
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
  const { base, values, entries } = decoded;
  const text = (ref: unknown): string | null | undefined =>
    ref === null ? null : typeof ref === "number" && Number.isInteger(ref) && ref >= 0 && ref < values.length ? values[ref] : undefined;
  const rows: AuditRow[] = [];
  let prevHash = segment.prevHash;
  let fields: (string | null)[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!Array.isArray(e) || (e.length !== HEAD && e.length !== HEAD + REFS) || !isText(e[0]) || typeof e[2] !== "number" || !isText(e[3])) return [unreadableRow(segment)];
    const createdAt = typeof e[1] === "number" && Number.isInteger(e[1]) ? timeText(base + e[1]) : isText(e[1]) ? e[1] : undefined;
    if (createdAt === undefined) return [unreadableRow(segment)];
    if (e.length > HEAD) {
      fields = [];
      for (let r = 0; r < REFS; r++) {
        const value = text(e[HEAD + r]);
        if (value === undefined) return [unreadableRow(segment)];
        fields.push(value);
      }
    }
    if (fields === undefined) return [unreadableRow(segment)];
    const [orgId, projectId, environment, secretPath, actorType, actorId, actorName, eventType, outcome, ipAddress, userAgent, metadata, secretKeyIndex] = fields;
    if (actorType === null || eventType === null || outcome === null || metadata === null) return [unreadableRow(segment)];
    rows.push({
      id: e[0],
      chainId: segment.chainId,
      seq: segment.firstSeq + i,
      createdAt,
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
      count: e[2],
      prevHash,
      hash: e[3],
    });
    prevHash = e[3];
  }
  return rows;
}

/** The text of an instant, or undefined for one out of range (an edited body). */
function timeText(ms: number): string | undefined {
  try {
    return new Date(ms).toISOString();
  } catch {
    return undefined;
  }
}

function decodeBody(body: string): { base: number; values: string[]; entries: unknown[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { v, t, d, e } = parsed as Record<string, unknown>;
  if (v !== VERSION || typeof t !== "number" || !Array.isArray(d) || !d.every(isText) || !Array.isArray(e) || e.length === 0) return undefined;
  return { base: t, values: d, entries: e };
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
