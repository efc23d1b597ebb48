import { accessRepository } from "../access/repository.js";
import type { Context } from "../kernel/context.js";
import { newId } from "../kernel/ids.js";
import { tablesOf, UniqueViolationError } from "../storage/table.js";
import { tenancyTables } from "../tenancy/tables.js";
import { GENESIS_HASH, RowHasher } from "./chain.js";
import { chainOf, type AuditDraft } from "./drafts.js";
import type { AuditKeys } from "./keys.js";
import { sealedAheadOf, sealNow, secretKeyIndex, type SealedMetadata } from "./prepared.js";
import { auditRepository } from "./repository.js";
import { entryOf, newEntryId } from "./rows.js";
import { SegmentBuilder } from "./segments.js";
import type { AuditRow } from "./tables.js";
import type { AuditEntry, AuditMetadata } from "./schemas.js";

/**
 * Placing drafts in their chains: resolve what the recorder could not know without a lookup
 * (a project's organization, an actor's name), then per chain lock the head, number and hash the
 * entries, insert them in one statement and move the head — all inside the caller's transaction.
 */

/** Small lookups cached for the life of the instance: projects never change organization, names rarely matter to the minute. */
export class PlaceResolver {
  private readonly projectOrg = new Map<string, string | null>();
  private readonly names = new Map<string, string | null>();
  private readonly userOrg = new Map<string, string | null>();

  /** Resolves every draft; those whose lookups are all cached (nearly all) without an await. */
  async resolveAll(ctx: Context, drafts: readonly AuditDraft[]): Promise<AuditDraft[]> {
    const out: AuditDraft[] = [];
    for (const draft of drafts) out.push(this.fromCache(draft) ?? (await this.resolve(ctx, draft)));
    return out;
  }

  private fromCache(draft: AuditDraft): AuditDraft | undefined {
    if (draft.actor.type === "unknownUser" && draft.outcome === "success") return undefined;
    let { orgId, projectId } = draft;
    if (projectId !== null) {
      if (!this.projectOrg.has(projectId)) return undefined;
      const owner = this.projectOrg.get(projectId)!;
      if (owner === null || (orgId !== null && owner !== orgId)) projectId = null;
      else orgId = owner;
    }
    if (orgId === null && draft.actor.type === "user" && draft.actor.id) {
      if (!this.userOrg.has(draft.actor.id)) return undefined;
      orgId = this.userOrg.get(draft.actor.id)!;
    }
    let name = draft.actor.name;
    if (name === null && draft.actor.id) {
      const key = `${draft.actor.type}:${draft.actor.id}`;
      if (!this.names.has(key)) return undefined;
      name = this.names.get(key)!;
    }
    if (orgId === draft.orgId && projectId === draft.projectId && name === draft.actor.name) return draft;
    return { ...draft, orgId, projectId, actor: { ...draft.actor, name } };
  }

  async resolve(ctx: Context, input: AuditDraft): Promise<AuditDraft> {
    const draft = await this.loggedIn(ctx, input);
    let { orgId, projectId } = draft;
    if (projectId !== null) {
      const owner = await this.orgOfProject(ctx, projectId);
      // A project that does not exist (a guessed id) gets no chain: the entry goes to the actor's organization.
      if (owner === null || (orgId !== null && owner !== orgId)) projectId = null;
      else orgId = owner;
    }
    if (orgId === null && draft.actor.type === "user" && draft.actor.id) orgId = await this.orgOfUser(ctx, draft.actor.id);
    const name = draft.actor.name ?? (draft.actor.id ? await this.nameOf(ctx, draft.actor.type, draft.actor.id) : null);
    if (orgId === draft.orgId && projectId === draft.projectId && name === draft.actor.name) return draft;
    return { ...draft, orgId, projectId, actor: { ...draft.actor, name } };
  }

  /** A successful login is the principal's: recorded as theirs, in their organization's chain. */
  private async loggedIn(ctx: Context, draft: AuditDraft): Promise<AuditDraft> {
    if (draft.actor.type !== "unknownUser" || draft.outcome !== "success") return draft;
    const t = tablesOf(ctx.storage, { users: tenancyTables.users, universalAuths: tenancyTables.universalAuths });
    if (typeof draft.metadata.email === "string") {
      const user = await t.users.findOne({ email: draft.metadata.email });
      if (user) return { ...draft, actor: { type: "user", id: user.id, name: user.email } };
    }
    if (typeof draft.metadata.clientId === "string") {
      const auth = await t.universalAuths.findOne({ clientId: draft.metadata.clientId });
      const identity = auth && (await ctx.repo(accessRepository).identity(auth.identityId));
      if (identity) return { ...draft, orgId: identity.orgId, actor: { type: "identity", id: identity.id, name: identity.name } };
    }
    return draft;
  }

  private async orgOfProject(ctx: Context, projectId: string): Promise<string | null> {
    if (this.projectOrg.has(projectId)) return this.projectOrg.get(projectId)!;
    const project = await ctx.repo(accessRepository).projectById(projectId);
    const orgId = project?.orgId ?? null;
    if (project) this.remember(this.projectOrg, projectId, orgId);
    return orgId;
  }

  private async orgOfUser(ctx: Context, userId: string): Promise<string | null> {
    if (this.userOrg.has(userId)) return this.userOrg.get(userId)!;
    const memberships = await ctx.repo(accessRepository).orgMembershipsOfUser(userId);
    // A user in several organizations acting outside any of them: the instance chain.
    const orgId = memberships.length === 1 ? memberships[0].orgId : null;
    this.remember(this.userOrg, userId, orgId);
    return orgId;
  }

  private async nameOf(ctx: Context, type: string, id: string): Promise<string | null> {
    const key = `${type}:${id}`;
    if (this.names.has(key)) return this.names.get(key)!;
    let name: string | null = null;
    if (type === "user") name = (await tablesOf(ctx.storage, { users: tenancyTables.users }).users.get(id))?.email ?? null;
    else if (type === "identity") name = (await ctx.repo(accessRepository).identity(id))?.name ?? null;
    this.remember(this.names, key, name);
    return name;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    if (map.size >= 10_000) map.clear();
    map.set(key, value);
  }
}

/**
 * Salted, digested and sealed metadata, kept per instance key set and reused across appends:
 * reads repeat the same few secrets, within a flush and from one flush to the next, and sealing
 * (a cipher per metadata) is most of an entry's own cost. Entries with equal metadata then share a
 * salt and a sealed form, so a dump shows that they named the same things — which their plaintext
 * columns and the blind index of their secret keys show already — and nothing about what those
 * things are. A value is made once for exactly its key's text under this audit key, so it cannot
 * be stale or another tenant's: an entry naming other things has other text.
 *
 * Keyed by the plain JSON text, which one native call writes without the key-sorted copy the
 * canonical text needs: equal plain text means equal metadata (plain JSON data: names, ids,
 * versions). Equal metadata built in another key order gets a second salt and seal: harmless.
 */
const sealCaches = new WeakMap<AuditKeys, Map<string, SealedMetadata>>();
/** Bounds: what a few thousand distinct reads take (about 1 KB each); a batch's metadata is not kept. */
const SEAL_CACHE_ENTRIES = 4_000;
const SEAL_CACHE_TEXT = 2_048;

function metadataSealer(keys: AuditKeys): (metadata: AuditMetadata) => SealedMetadata {
  let seen = sealCaches.get(keys);
  if (seen === undefined) sealCaches.set(keys, (seen = new Map()));
  const cache = seen;
  let lastMetadata: AuditMetadata | undefined;
  let lastSealed: SealedMetadata | undefined;
  return (metadata) => {
    // A run of entries naming the same things (one caller reading one secret again and again) is
    // recognised by comparing with the previous entry's metadata, cheaper than writing its text.
    if (lastSealed !== undefined && sameMetadata(lastMetadata!, metadata)) return lastSealed;
    lastMetadata = metadata;
    lastSealed = sealedOf(metadata);
    return lastSealed;
  };

  function sealedOf(metadata: AuditMetadata): SealedMetadata {
    const ahead = sealedAheadOf(keys, metadata);
    if (ahead) return ahead;
    const plain = JSON.stringify(metadata);
    let done = cache.get(plain);
    if (done === undefined) {
      done = sealNow(keys, metadata);
      if (plain.length <= SEAL_CACHE_TEXT) {
        if (cache.size >= SEAL_CACHE_ENTRIES) cache.clear();
        cache.set(plain, done);
      }
    }
    return done;
  }
}

/**
 * Equal metadata: the same keys with the same values (scalars, or arrays of scalars), in any
 * order — what is sealed is its canonical text. Anything else (nested objects) counts as
 * different, and is then found, or sealed, by its text.
 */
function sameMetadata(a: AuditMetadata, b: AuditMetadata): boolean {
  if (a === b) return true;
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return false;
    const x = a[key];
    const y = b[key];
    if (x !== y && !(Array.isArray(x) && Array.isArray(y) && sameScalars(x, y))) return false;
    keys++;
  }
  for (const key in b) if (Object.hasOwn(b, key)) keys--;
  return keys === 0;
}

function sameScalars(x: readonly unknown[], y: readonly unknown[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i] || (typeof x[i] === "object" && x[i] !== null)) return false;
  return true;
}

/** How `appendDrafts` stores and reports what it appends. */
export interface AppendOptions {
  /** One segment row per chain (a flush of queued entries) rather than a row per entry (a change's). */
  readonly segments: boolean;
  /** Return the entries in their public form (someone streams them); else nothing is returned. */
  readonly entries: boolean;
}

/** Appends resolved drafts in `tx`; returns the entries in their public form when asked (for sinks, after commit). */
export async function appendDrafts(tx: Context, keys: AuditKeys, drafts: readonly AuditDraft[], options: AppendOptions): Promise<AuditEntry[]> {
  const byChain = new Map<string, AuditDraft[]>();
  for (const draft of drafts) {
    const chain = chainOf(draft);
    const list = byChain.get(chain);
    if (list) list.push(draft);
    else byChain.set(chain, [draft]);
  }
  const repo = tx.repo(auditRepository);
  const now = tx.clock.now().toISOString();
  const out: AuditEntry[] = [];
  const sealMetadata = metadataSealer(keys);
  // Heads are locked in one order everywhere, so two nodes flushing overlapping chains cannot deadlock.
  for (const chain of [...byChain.keys()].sort()) {
    const list = byChain.get(chain)!;
    let head = await repo.lockHead(chain);
    if (!head) {
      const fresh = { id: chain, orgId: list[0].orgId, projectId: list[0].projectId, seq: 0, hash: GENESIS_HASH, firstSeq: 1, updatedAt: now };
      try {
        // Waits for another node creating the same head; a write inside a transaction fails alone (savepoint).
        await repo.createHead(fresh);
        head = fresh;
      } catch (error) {
        if (!(error instanceof UniqueViolationError)) throw error;
        head = await repo.lockHead(chain);
        if (!head) throw error;
      }
    }
    let { seq, hash } = head;
    const segment = options.segments ? new SegmentBuilder(chain, seq + 1, hash) : undefined;
    const rows: AuditRow[] = [];
    const hasher = new RowHasher();
    for (const draft of list) {
      seq += 1;
      const metadata = sealMetadata(draft.metadata);
      const row: AuditRow = {
        id: newEntryId(),
        chainId: chain,
        seq,
        createdAt: draft.at,
        orgId: draft.orgId,
        projectId: draft.projectId,
        environment: draft.environment,
        secretPath: draft.secretPath,
        actorType: draft.actor.type,
        actorId: draft.actor.id,
        actorName: draft.actor.name,
        eventType: draft.eventType,
        outcome: draft.outcome,
        ipAddress: draft.ipAddress,
        userAgent: draft.userAgent,
        metadata: metadata.sealed,
        secretKeyIndex: secretKeyIndex(keys, draft.secretKeys),
        count: draft.count,
        prevHash: hash,
        hash: "",
      };
      // The hash covers every field but itself: set once computed, rather than copying the row.
      row.hash = hash = hasher.hash(row, metadata.digest);
      if (options.entries) out.push(entryOf(row, draft.metadata, metadata.salt));
      if (segment) segment.add(row);
      else rows.push(row);
    }
    if (segment) await repo.insertSegment(segment.row(newId(), list[0].orgId, list[0].projectId));
    else await repo.insertEntries(rows);
    await repo.moveHead(chain, seq, hash, now);
  }
  return out;
}
