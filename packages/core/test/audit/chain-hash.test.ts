import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RowHasher, rowHash, type HashedRow } from "../../src/audit/chain.js";

/** The definition of an entry's hash, written out as DESIGN.md §11 states it (v1). */
const reference = (r: HashedRow, digest: string) =>
  createHash("sha256")
    .update(
      JSON.stringify([
        "strongroom-audit-v1",
        r.prevHash,
        r.chainId,
        r.seq,
        r.id,
        r.createdAt,
        r.orgId,
        r.projectId,
        r.environment,
        r.secretPath,
        r.actorType,
        r.actorId,
        r.actorName,
        r.eventType,
        r.outcome,
        r.ipAddress,
        r.userAgent,
        r.count,
        digest,
      ]),
    )
    .digest("hex");

const text = fc.string({ unit: "binary", maxLength: 30 });
const maybe = fc.option(text, { nil: null });
const context = fc.record({
  orgId: maybe,
  projectId: maybe,
  environment: maybe,
  secretPath: maybe,
  actorType: text,
  actorId: maybe,
  actorName: maybe,
  eventType: text,
  outcome: text,
  ipAddress: maybe,
  userAgent: maybe,
});
const row = (shared: fc.Arbitrary<Omit<HashedRow, "prevHash" | "chainId" | "seq" | "id" | "createdAt" | "count">>) =>
  fc.record({ prevHash: text, chainId: text, seq: fc.integer(), id: text, createdAt: text, count: fc.integer() }).chain((head) => shared.map((c) => ({ ...head, ...c })));

describe("audit entry hash", () => {
  it("is the hash of the canonical array, whatever the fields hold (quotes, control characters, unpaired surrogates)", () => {
    fc.assert(
      fc.property(row(context), text, (r, digest) => {
        expect(rowHash(r, digest)).toBe(reference(r, digest));
      }),
    );
  });

  it("is the same through a RowHasher over runs of rows sharing their context, or not", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), row(context)), { maxLength: 20 }), text, (rows, digest) => {
        const hasher = new RowHasher();
        let previous: HashedRow | undefined;
        for (const [reuse, fresh] of rows) {
          // Reuse: the previous row's very context strings, as a run of one caller's reads has.
          const r = reuse && previous ? { ...fresh, ...pickContext(previous) } : fresh;
          expect(hasher.hash(r, digest)).toBe(reference(r, digest));
          previous = r;
        }
      }),
    );
  });
});

function pickContext(r: HashedRow) {
  const { orgId, projectId, environment, secretPath, actorType, actorId, actorName, eventType, outcome, ipAddress, userAgent } = r;
  return { orgId, projectId, environment, secretPath, actorType, actorId, actorName, eventType, outcome, ipAddress, userAgent };
}
