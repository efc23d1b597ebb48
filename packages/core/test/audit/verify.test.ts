import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, checkpointSignatureValid, entryHash, GENESIS_HASH, signCheckpoint } from "../../src/audit/chain.js";
import type { AuditEntry } from "../../src/audit/schemas.js";
import { verifyChain, type VerifiableEntry } from "../../src/audit/verify.js";

const CHAIN = "project:p1";

/** A well-formed chain of `n` entries. */
function chainOf(n: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const fields = {
      id: `e${seq}`,
      chain: CHAIN,
      seq,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      orgId: "o1",
      projectId: "p1",
      environment: "dev",
      secretPath: "/",
      actor: { type: "identity" as const, metadata: { id: "i1", name: "bot" } },
      event: { type: "get-secret", metadata: { secretName: `S${seq}` } },
      outcome: "success" as const,
      ipAddress: "203.0.113.1",
      userAgent: null,
      count: 1,
      salt: `salt${seq}`,
      prevHash,
    };
    const hash = entryHash(fields);
    out.push({ ...fields, hash });
    prevHash = hash;
  }
  return out;
}

describe("verifyChain", () => {
  const good = chainOf(5);
  const head = { seq: 5, hash: good[4].hash };

  it("accepts an untouched chain, to the head it was given", () => {
    expect(verifyChain(CHAIN, good, { head })).toEqual({ ok: true, chain: CHAIN, checked: 5, head });
  });

  const cases: [string, (c: VerifiableEntry[]) => VerifiableEntry[], { seq: number; id?: string; reason: string }][] = [
    ["an edited field", (c) => c.map((e, i) => (i === 2 ? { ...(e as AuditEntry), outcome: "denied" as const } : e)), { seq: 3, reason: "hash-mismatch" }],
    ["edited metadata", (c) => c.map((e, i) => (i === 1 ? { ...(e as AuditEntry), event: { type: "get-secret", metadata: { secretName: "X" } } } : e)), { seq: 2, reason: "hash-mismatch" }],
    ["a changed salt", (c) => c.map((e, i) => (i === 1 ? { ...(e as AuditEntry), salt: "other" } : e)), { seq: 2, reason: "hash-mismatch" }],
    ["a deleted entry", (c) => c.filter((_, i) => i !== 2), { seq: 3, reason: "missing" }],
    ["a cut tail", (c) => c.slice(0, 3), { seq: 4, reason: "behind-head" }],
    ["two entries swapped", (c) => [c[0], c[2], c[1], c[3], c[4]], { seq: 3, id: "e3", reason: "out-of-order" }],
    ["an entry moved far back", (c) => [c[0], c[2], c[3], c[4], c[1]], { seq: 3, id: "e3", reason: "out-of-order" }],
    ["swapped seq numbers", (c) => [c[0], { ...(c[2] as AuditEntry), seq: 2 }, { ...(c[1] as AuditEntry), seq: 3 }, c[3], c[4]], { seq: 2, reason: "broken-link" }],
    ["an unreadable entry", (c) => c.map((e, i) => (i === 3 ? { unreadable: true as const, id: "e4", seq: 4, chain: CHAIN } : e)), { seq: 4, reason: "unreadable" }],
    ["an entry of another chain", (c) => c.map((e, i) => (i === 0 ? { ...(e as AuditEntry), chain: "project:p2" } : e)), { seq: 1, reason: "out-of-order" }],
    ["an entry appended beyond the head", (c) => [...c, chainOf(6)[5]], { seq: 6, reason: "beyond-head" }],
  ];
  it.each(cases)("names the first entry that does not fit: %s", (_name, tamper, firstBad) => {
    expect(verifyChain(CHAIN, tamper(good), { head })).toMatchObject({ ok: false, firstBad });
  });

  it("reports entries beyond a head obtained earlier, and starts from an anchor", () => {
    expect(verifyChain(CHAIN, good, { head: { seq: 4, hash: good[3].hash } })).toMatchObject({ ok: false, firstBad: { seq: 5, reason: "beyond-head" } });
    expect(verifyChain(CHAIN, good.slice(2), { anchor: { seq: 2, hash: good[1].hash }, head })).toMatchObject({ ok: true, checked: 3 });
    expect(verifyChain(CHAIN, good.slice(2), { anchor: { seq: 2, hash: "f".repeat(64) } })).toMatchObject({ ok: false, firstBad: { seq: 3, reason: "broken-link" } });
  });

  it("checks checkpoints against the entries and their signature against the public key", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const spki = publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const body = { chain: CHAIN, seq: 4, hash: good[3].hash, createdAt: "2026-01-01T01:00:00.000Z" };
    const checkpoint = { ...body, keyId: "k", signature: signCheckpoint(body, privateKey) };
    expect(checkpointSignatureValid(checkpoint, spki)).toBe(true);
    expect(verifyChain(CHAIN, good, { checkpoints: [checkpoint], publicKeySpki: spki })).toMatchObject({ ok: true });
    expect(verifyChain(CHAIN, good, { checkpoints: [{ ...checkpoint, createdAt: "2027-01-01T00:00:00.000Z" }], publicKeySpki: spki })).toMatchObject({
      ok: false,
      firstBad: { seq: 4, reason: "bad-signature" },
    });
    // A rewritten chain (every hash recomputed) no longer matches what was signed.
    const rewritten = chainOf(5).map((e) => e);
    rewritten[1] = { ...rewritten[1], outcome: "denied" };
    let prev = rewritten[0].hash;
    for (let i = 1; i < rewritten.length; i++) {
      const { hash: _h, ...fields } = { ...rewritten[i], prevHash: prev };
      rewritten[i] = { ...fields, hash: entryHash(fields) };
      prev = rewritten[i].hash;
    }
    expect(verifyChain(CHAIN, rewritten, { checkpoints: [checkpoint], publicKeySpki: spki })).toMatchObject({ ok: false, firstBad: { seq: 4, reason: "hash-mismatch" } });
  });

  it("hashes canonical JSON: key order never matters", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe(canonicalJson({ a: [{ c: null, d: 2 }], b: 1 }));
  });
});
