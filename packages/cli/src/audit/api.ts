/** `audit verify --api`: a copy fetched from the server's API, checked here with the pure verifier. */
import { auditEntrySchema, auditHeadSchema, verifyChain, type AuditEntry, type AuditVerifyResult, type VerifyAnchor } from "@strongroom/core/audit";
import { expectStatus } from "../client/errors.js";
import { call, type ServerTarget } from "../client/http.js";
import { CliError, EXIT } from "../exit-codes.js";

const PAGE = 1000;

/**
 * One chain as the API serves it: its head (with the newest signed checkpoint and the public
 * key) and its entries, paged newest first and put in seq order here. Nothing the server says
 * about itself is taken on trust but the public key: every hash is recomputed, the checkpoint's
 * signature and the served head are checked against the entries, and a head noted earlier must
 * still be reached with its hash. Project chains are read with the `projectId` filter, others
 * (organization-level) from the organization's entries; the caller needs read access to them.
 */
export async function verifyThroughApi(target: ServerTarget, chain: string, range: { fromSeq?: number; toSeq?: number; head?: VerifyAnchor }): Promise<AuditVerifyResult> {
  const head = auditHeadSchema.parse(expectStatus(await call(target, "GET", "/api/v1/organization/audit-logs/head", { query: { chain } }), `reading the head of ${chain}`));
  const projectId = chain.startsWith("project:") ? chain.slice("project:".length) : undefined;
  const byId = new Map<string, AuditEntry>();
  for (let offset = 0; ; offset += PAGE) {
    const answer = expectStatus(
      await call(target, "GET", "/api/v1/organization/audit-logs", { query: { ...(projectId ? { projectId } : {}), offset: String(offset), limit: String(PAGE) } }),
      `reading the entries of ${chain}`,
    ) as { auditLogs: unknown[] };
    // Entries recorded while paging shift the pages (newest first): the same entry may come twice.
    for (const raw of answer.auditLogs) {
      const entry = auditEntrySchema.parse(raw);
      if (entry.chain === chain) byId.set(entry.id, entry);
    }
    if (answer.auditLogs.length < PAGE) break;
  }
  const entries = [...byId.values()]
    .filter((e) => e.seq <= head.seq && (range.fromSeq === undefined || e.seq >= range.fromSeq) && (range.toSeq === undefined || e.seq <= range.toSeq))
    .sort((a, b) => a.seq - b.seq);
  if (entries.length === 0) throw new CliError(`the server holds no entries of ${chain}${range.fromSeq || range.toSeq ? " in that range" : ""}`, EXIT.notFound);
  const first = entries[0];
  // From the chain's start (its genesis, or where retention cut it) the walk needs no trust; a
  // range starting later trusts the stored link of its first entry.
  const anchor = first.seq === 1 ? undefined : { seq: first.seq - 1, hash: first.prevHash };
  const reachesHead = range.toSeq === undefined || range.toSeq >= head.seq;
  const given = range.head;
  const result = verifyChain(chain, entries, {
    ...(anchor ? { anchor } : {}),
    ...(reachesHead ? { head: { seq: head.seq, hash: head.hash } } : {}),
    checkpoints: head.checkpoint ? [head.checkpoint] : [],
    publicKeySpki: head.publicKey.spki,
  });
  if (!result.ok || !given) return result;
  // A head noted earlier: the log must still hold it, with the same hash.
  if (given.seq > head.seq) return { ok: false, chain, checked: result.checked, firstBad: { seq: head.seq + 1, id: null, reason: "behind-head" } };
  const at = entries.find((e) => e.seq === given.seq);
  if (!at && given.seq >= first.seq) return { ok: false, chain, checked: result.checked, firstBad: { seq: given.seq, id: null, reason: "missing" } };
  return at && at.hash !== given.hash ? { ok: false, chain, checked: result.checked, firstBad: { seq: given.seq, id: at.id, reason: "hash-mismatch" } } : result;
}
