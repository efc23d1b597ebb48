import { createTestWorld, forEachStore } from "@strongroom/core/testing";
import fc from "fast-check";
import { expect, it, onTestFinished } from "vitest";
import { auditLogService } from "../../src/audit/log.js";
import { batchKeyIndex } from "../../src/audit/prepared.js";
import { secretKeyIndexFrom } from "../../src/audit/rows.js";
import { unpaced } from "../../src/kernel/pace.js";
import type { AuditEntry } from "../../src/audit/schemas.js";

/**
 * A change's entry is written in the change's transaction, but its costly part (the blind index
 * of every name, sealing the metadata) is made before it opens: inside, only what depends on the
 * chain's head. Whatever was made ahead, the entry says what it said when made inside.
 */
forEachStore("an entry prepared ahead", (store) => {
  it("a batch's entry is indexed and sealed before its transaction, and reads, filters and verifies as before", async () => {
    const w = await createTestWorld({ storage: await store.open() });
    onTestFinished(() => w.close());
    const log = w.sr.context.service(auditLogService);
    const streamed: AuditEntry[] = [];
    w.sr.audit.addSink({ name: "test", write: async (entries) => void streamed.push(...entries), lag: () => ({ pending: 0, oldestPendingAt: null, dropped: 0 }) });
    await log.flush();

    // Counts the audit key's work done while a transaction is open.
    let open = 0;
    const inside = { blindIndex: 0, seal: 0 };
    const transaction = w.storage.transaction.bind(w.storage);
    w.storage.transaction = (async (fn: never) => {
      open++;
      try {
        return await transaction(fn);
      } finally {
        open--;
      }
    }) as typeof w.storage.transaction;
    const keys = log.keys as { -readonly [K in keyof typeof log.keys]: (typeof log.keys)[K] };
    const { blindIndex, blindIndexInto, sealMetadata } = keys;
    keys.blindIndex = (name) => ((inside.blindIndex += open ? 1 : 0), blindIndex(name));
    keys.blindIndexInto = (name, target, offset) => ((inside.blindIndex += open ? 1 : 0), blindIndexInto(name, target, offset));
    keys.sealMetadata = (salt, text) => ((inside.seal += open ? 1 : 0), sealMetadata(salt, text));

    const secrets = Array.from({ length: 100 }, (_, i) => ({ secretKey: `BATCH_${i}`, secretValue: `value-${i}` }));
    await w.sr.secrets.updateMany(w.admin, { projectId: w.projectId, environment: "dev", secretPath: "/", mode: "upsert", secrets } as never);
    expect(inside).toEqual({ blindIndex: 0, seal: 0 });

    const batch = streamed.find((e) => e.event.metadata.secretCount === 100);
    expect(batch?.event.metadata).toMatchObject({ environment: "dev", secretPath: "/", secretCount: 100 });
    expect(batch?.event.metadata.secrets).toEqual(secrets.map(({ secretKey }) => ({ secretKey })));

    // A single write's answer names what it made: its metadata is extended, and so sealed in the transaction.
    await w.sr.secrets.create(w.admin, { projectId: w.projectId, environment: "dev", secretName: "SINGLE", secretValue: "v" } as never);
    const single = streamed.at(-1)!;
    expect(single.event.metadata).toMatchObject({ secretName: "SINGLE", secretId: expect.any(String) });
    expect(Object.isFrozen(single.event.metadata)).toBe(false);

    const found = await w.sr.audit.query(w.admin, { projectId: w.projectId, secretKey: "BATCH_42" } as never);
    expect(found.auditLogs.map((e) => e.id)).toEqual([batch!.id]);
    const stored = (await w.sr.audit.query(w.admin, { projectId: w.projectId, limit: 100 } as never)).auditLogs.find((e) => e.id === batch!.id);
    expect(stored).toEqual(batch);
    expect(await w.sr.audit.verify({ chain: `project:${w.projectId}` })).toMatchObject({ ok: true });
  });
});

it("property: a batch's key index, written in one buffer, is the one its names' blind indexes make", async () => {
  const w = await createTestWorld({});
  onTestFinished(() => w.close());
  const keys = w.sr.context.service(auditLogService).keys;
  const name = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,60}$/), fc.string({ unit: "binary", maxLength: 40 }));
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(name, { maxLength: 80 }), async (names) => {
      expect(await batchKeyIndex(keys, names, unpaced)).toBe(secretKeyIndexFrom(names.map(keys.blindIndex)));
    }),
    { numRuns: 200 },
  );
});
