import { entryHash, GENESIS_HASH } from "../../../src/audit/chain.js";
import type { AuditEntry } from "../../../src/audit/schemas.js";

/** `count` well-formed entries of one chain, each hashed over its predecessor, as the log would stream them. */
export function sampleChain(count: number, chain = "project:p1", from = 1): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq < from + count; seq++) {
    const fields: Omit<AuditEntry, "hash"> = {
      id: `entry-${String(seq).padStart(4, "0")}`,
      chain,
      seq,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      orgId: "o1",
      projectId: chain.startsWith("project:") ? chain.slice("project:".length) : null,
      environment: "prod",
      secretPath: "/",
      actor: { type: "identity", metadata: { id: "i1", name: "ci" } },
      event: { type: "get-secret", metadata: { secretKey: "DB_URL", secretVersion: 3 } },
      outcome: "success",
      ipAddress: "127.0.0.1",
      userAgent: "vitest",
      count: 1,
      salt: `salt-${seq}`,
      prevHash,
    };
    const entry = { ...fields, hash: entryHash(fields) };
    prevHash = entry.hash;
    if (seq >= from) entries.push(entry);
  }
  return entries;
}
