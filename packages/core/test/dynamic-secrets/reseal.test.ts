import { createTestWorld, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseRepository } from "../../src/dynamic-secrets/leases/repository.js";
import { openInputs, openLeaseData, sealInputs, sealLeaseData } from "../../src/dynamic-secrets/sealing.js";
import { dynamicSecretRepository } from "../../src/dynamic-secrets/secrets/repository.js";
import type { DynamicSecretRow, LeaseRow } from "../../src/dynamic-secrets/tables.js";

/**
 * The rewrap steps `rotate-data-keys` runs for dynamic secrets: sealed inputs and held lease
 * credentials move to the new data key, open under it, and are bound to their rows.
 */
describe("re-sealing dynamic secrets under a new data key", () => {
  let w: TestWorld;
  beforeAll(async () => {
    w = await createTestWorld();
  });
  afterAll(async () => w?.close());

  it("moves inputs and held lease credentials, which then open under the new key only", async () => {
    const ctx = w.sr.context;
    const { project } = await w.sr.projects.get(w.admin, { projectId: w.projectId } as never);
    const from = project.kmsSecretManagerKeyId;
    const at = w.clock.now().toISOString();
    const env = (await w.storage.tables.environments.find({ projectId: w.projectId }))[0]!;
    const inputs = { client: "postgres", host: "db", database: "app", username: "root", password: "root-password-1" };
    const secret: DynamicSecretRow = {
      id: "9a1c2f0e-0000-4000-8000-000000000001", orgId: w.orgId, projectId: w.projectId, envId: env.id, folderId: env.id, name: "db",
      type: "sql-database", defaultTtl: "1h", maxTtl: null, sealedInputs: "", sealedWith: from, metadata: [], version: 1, deletedAt: null, createdAt: at, updatedAt: at,
    };
    secret.sealedInputs = await sealInputs(ctx, from, secret.id, inputs);
    await w.storage.tables.dynamicSecrets.insert(secret);
    const lease: LeaseRow = {
      id: "9a1c2f0e-0000-4000-8000-000000000002", orgId: w.orgId, projectId: w.projectId, dynamicSecretId: secret.id, externalEntityId: "sruser",
      status: "active", statusDetails: null, version: 1, expiresAt: at, revokeAttempts: 0, nextAttemptAt: null, claimedUntil: null, revokedAt: null,
      holderProxyId: "p", holderServiceId: "s", sealedData: null, sealedWith: from, createdAt: at, updatedAt: at,
    };
    lease.sealedData = await sealLeaseData(ctx, from, lease.id, { DB_USERNAME: "sruser", DB_PASSWORD: "leased-password-1" });
    await w.storage.tables.dynamicSecretLeases.insert(lease);

    const to = await ctx.keys.createDataKey(ctx.storage, { orgId: w.orgId, projectId: w.projectId }, "secret-manager", w.clock.now());
    expect(await ctx.repo(dynamicSecretRepository).resealInputs(w.projectId, from, to)).toBe(1);
    expect(await ctx.repo(leaseRepository).resealHeldData(w.projectId, from, to)).toBe(1);
    expect(await ctx.repo(dynamicSecretRepository).resealInputs(w.projectId, from, to)).toBe(0);

    const moved = (await w.storage.tables.dynamicSecrets.get(secret.id))!;
    expect(moved.sealedWith).toBe(to);
    expect(await openInputs(ctx, moved)).toEqual(inputs);
    const held = (await w.storage.tables.dynamicSecretLeases.get(lease.id))!;
    expect(await openLeaseData(ctx, to, lease.id, held.sealedData!)).toEqual({ DB_USERNAME: "sruser", DB_PASSWORD: "leased-password-1" });
    await expect(openLeaseData(ctx, from, lease.id, held.sealedData!)).rejects.toThrow();
    // Bound to its row: the same sealed value does not open as another lease's.
    await expect(openLeaseData(ctx, to, secret.id, held.sealedData!)).rejects.toThrow();
  });
});
