import { accessTables } from "../access/tables.js";
import { keyTables, type KeyRow } from "../crypto/tables.js";
import { dynamicSecretRepository } from "../dynamic-secrets/secrets/repository.js";
import { leaseRepository } from "../dynamic-secrets/leases/repository.js";
import type { Context } from "../kernel/context.js";
import { cmekRepository } from "../kms/keys/repository.js";
import { forgetProjectKeys, KEY_NOTICE_MS } from "../secret-manager/cipher.js";
import { secretKeyOf, sweepSecrets } from "../secret-manager/rewrap.js";
import { tablesOf, UniqueViolationError } from "../storage/table.js";

/**
 * `strongroom rotate-data-keys --project`: everything sealed under a project's secret-manager
 * data key moves to a fresh one while the servers keep serving. The steps, each recorded in
 * `data_key_rotations` so that a run that stopped is resumed by running it again:
 *
 * 1. announce: the new key is created and recorded; after `noticeMs` every node reads with both
 *    keys (opens try each, names are looked up under both blind indexes) — see `projectCipher`;
 * 2. switch: the project seals with the new key; after `noticeMs` no node writes under the old one;
 * 3. sweep: secrets and their versions in batches (each prepared outside any transaction, written
 *    in a short one, conditional on what was read), then the KMS key material, dynamic-secret
 *    inputs and held-lease credentials (each feature's rewrap step); passes repeat until one
 *    finds nothing left under the old key;
 * 4. retire: the rotation record goes, and the old key with it when nothing else uses it (a
 *    project created on an organization key leaves that key to its organization).
 */

export interface DataKeyRotationOptions {
  /** Rows per batch (default 500). */
  readonly batchSize?: number;
  /** How long nodes take to notice a step (default: the key-notice bound plus a second). */
  readonly noticeMs?: number;
  /** How to wait `noticeMs` (tests that run the only node in-process pass a no-op). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly onProgress?: (step: RotationStep) => void;
}

export type RotationStep =
  | { readonly step: "announced" | "switched"; readonly waitMs: number }
  | { readonly step: "swept"; readonly pass: number; readonly moved: number };

export interface DataKeyRotationReport {
  readonly projectId: string;
  readonly fromKeyId: string;
  readonly toKeyId: string;
  /** Whether an earlier run had started this rotation. */
  readonly resumed: boolean;
  /** Rows moved to the new key, by what they hold. */
  readonly moved: { secrets: number; kmsKeyVersions: number; dynamicSecrets: number; leases: number };
  readonly passes: number;
  /** `deleted`, or `kept` when the old key is also another's (an organization key). */
  readonly oldKey: "deleted" | "kept";
}

/** A pass that still finds rows under the old key this many times means some node never noticed. */
const MAX_PASSES = 5;

export async function rotateProjectDataKey(ctx: Context, projectId: string, options: DataKeyRotationOptions = {}): Promise<DataKeyRotationReport> {
  const batchSize = options.batchSize ?? 500;
  const noticeMs = options.noticeMs ?? KEY_NOTICE_MS + 1_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const keys = tablesOf(ctx.storage, keyTables);
  const projects = tablesOf(ctx.storage, accessTables).projects;
  const project = await projects.get(projectId);
  if (!project) throw new Error(`no project ${projectId}`);

  let rotation = await keys.dataKeyRotations.get(projectId);
  const resumed = rotation !== undefined;
  if (!rotation) {
    rotation = await announce(ctx, project.orgId, projectId, project.kmsSecretManagerKeyId);
    forgetProjectKeys(ctx);
    options.onProgress?.({ step: "announced", waitMs: noticeMs });
    await sleep(noticeMs);
  }
  const { fromKeyId, toKeyId } = rotation;
  if (rotation.phase === "announced") {
    await ctx.withTransaction(async (tx) => {
      const t = tablesOf(tx.storage, accessTables);
      await t.projects.update({ id: projectId, kmsSecretManagerKeyId: fromKeyId }, { kmsSecretManagerKeyId: toKeyId });
      await tablesOf(tx.storage, keyTables).dataKeyRotations.update({ id: projectId }, { phase: "switched", updatedAt: tx.clock.now().toISOString() });
    });
    ctx.caches.access.changed();
    forgetProjectKeys(ctx);
    options.onProgress?.({ step: "switched", waitMs: noticeMs });
    await sleep(noticeMs);
  }

  const from = await secretKeyOf(ctx, fromKeyId);
  const to = await secretKeyOf(ctx, toKeyId);
  const moved = { secrets: 0, kmsKeyVersions: 0, dynamicSecrets: 0, leases: 0 };
  let passes = 0;
  for (;;) {
    if (++passes > MAX_PASSES) {
      throw new Error(`rows keep arriving under the old data key after ${MAX_PASSES} passes: is a node running that does not know rotations? Run again once it is upgraded`);
    }
    const secrets = await sweepSecrets(ctx, projectId, from, to, batchSize);
    const kmsKeyVersions = await ctx.repo(cmekRepository).resealKeys(projectId, fromKeyId, toKeyId);
    const dynamicSecrets = await ctx.repo(dynamicSecretRepository).resealInputs(projectId, fromKeyId, toKeyId);
    const leases = await ctx.repo(leaseRepository).resealHeldData(projectId, fromKeyId, toKeyId);
    moved.secrets += secrets.moved;
    moved.kmsKeyVersions += kmsKeyVersions;
    moved.dynamicSecrets += dynamicSecrets;
    moved.leases += leases;
    const thisPass = secrets.moved + secrets.raced + kmsKeyVersions + dynamicSecrets + leases;
    options.onProgress?.({ step: "swept", pass: passes, moved: thisPass });
    if (thisPass === 0) break;
  }

  const oldKey = await ctx.withTransaction(async (tx) => {
    const k = tablesOf(tx.storage, keyTables);
    const p = tablesOf(tx.storage, accessTables).projects;
    await k.dataKeyRotations.delete({ id: projectId });
    const old = await k.kmsKeys.get(fromKeyId);
    const stillUsed = (await p.count({ kmsSecretManagerKeyId: fromKeyId })) + (await p.count({ kmsCertificateKeyId: fromKeyId }));
    if (!old || old.projectId !== projectId || stillUsed > 0) return "kept" as const;
    await k.kmsKeys.delete({ id: fromKeyId });
    return "deleted" as const;
  });
  forgetProjectKeys(ctx);
  return { projectId, fromKeyId, toKeyId, resumed, moved, passes, oldKey };
}

async function announce(ctx: Context, orgId: string, projectId: string, fromKeyId: string): Promise<KeyRow<"dataKeyRotations">> {
  try {
    return await ctx.withTransaction(async (tx) => {
      const now = tx.clock.now();
      const toKeyId = await tx.keys.createDataKey(tx.storage, { orgId, projectId }, "secret-manager", now);
      const row = { id: projectId, fromKeyId, toKeyId, phase: "announced", startedAt: now.toISOString(), updatedAt: now.toISOString() };
      await tablesOf(tx.storage, keyTables).dataKeyRotations.insert(row);
      return row;
    });
  } catch (thrown) {
    if (thrown instanceof UniqueViolationError) throw new Error(`a data-key rotation of project ${projectId} is already under way (another run?)`);
    throw thrown;
  }
}
