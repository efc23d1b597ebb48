import { forgetKeyRotations, KEY_NOTICE_MS } from "../access/key-rotation.js";
import { accessTables } from "../access/tables.js";
import { resealCertificateSecrets } from "../cert-manager/rewrap.js";
import { keyTables, type KeyRow } from "../crypto/tables.js";
import { dynamicSecretRepository } from "../dynamic-secrets/secrets/repository.js";
import { leaseRepository } from "../dynamic-secrets/leases/repository.js";
import type { Context } from "../kernel/context.js";
import { cmekRepository } from "../kms/keys/repository.js";
import { secretKeyOf, sweepSecrets } from "../secret-manager/rewrap.js";
import { tablesOf, UniqueViolationError } from "../storage/table.js";

/**
 * `strongroom rotate-data-keys --project`: everything sealed under a project's data keys (the
 * secret-manager key and the certificate key) moves to fresh ones while the servers keep serving. The steps, each recorded in
 * `data_key_rotations` so that a run that stopped is resumed by running it again:
 *
 * 1. announce: the new keys are created and recorded; after `noticeMs` every node reads with both
 *    (opens try each, names are looked up under both blind indexes) — see `projectCipher` and
 *    `certificateSealer`;
 * 2. switch: the project seals with the new keys; after `noticeMs` no node writes under the old ones;
 * 3. sweep: secrets and their versions in batches (each prepared outside any transaction, written
 *    in a short one, conditional on what was read), then the KMS key material, dynamic-secret
 *    inputs, held-lease credentials, CA private keys and alert webhook secrets (each feature's
 *    rewrap step); passes repeat until one finds nothing left under the old keys;
 * 4. retire: the rotation record goes, and the old keys with it when nothing else uses them (a
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
  readonly moved: { secrets: number; kmsKeyVersions: number; dynamicSecrets: number; leases: number; certificateSecrets: number };
  readonly passes: number;
  /** The old secret-manager key: `deleted`, or `kept` when it is also another's (an organization key). */
  readonly oldKey: "deleted" | "kept";
  readonly certificateKey: { readonly fromKeyId: string; readonly toKeyId: string; readonly oldKey: "deleted" | "kept" };
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
    rotation = await announce(ctx, project.orgId, projectId, project.kmsSecretManagerKeyId, project.kmsCertificateKeyId);
    forgetKeyRotations(ctx);
    options.onProgress?.({ step: "announced", waitMs: noticeMs });
    await sleep(noticeMs);
  }
  const { fromKeyId, toKeyId, certFromKeyId, certToKeyId } = rotation;
  if (rotation.phase === "announced") {
    await ctx.withTransaction(async (tx) => {
      const t = tablesOf(tx.storage, accessTables);
      await t.projects.update({ id: projectId, kmsSecretManagerKeyId: fromKeyId }, { kmsSecretManagerKeyId: toKeyId });
      await t.projects.update({ id: projectId, kmsCertificateKeyId: certFromKeyId }, { kmsCertificateKeyId: certToKeyId });
      await tablesOf(tx.storage, keyTables).dataKeyRotations.update({ id: projectId }, { phase: "switched", updatedAt: tx.clock.now().toISOString() });
    });
    ctx.caches.access.changed();
    forgetKeyRotations(ctx);
    options.onProgress?.({ step: "switched", waitMs: noticeMs });
    await sleep(noticeMs);
  }

  const from = await secretKeyOf(ctx, fromKeyId);
  const to = await secretKeyOf(ctx, toKeyId);
  const moved = { secrets: 0, kmsKeyVersions: 0, dynamicSecrets: 0, leases: 0, certificateSecrets: 0 };
  let passes = 0;
  for (;;) {
    if (++passes > MAX_PASSES) {
      throw new Error(`rows keep arriving under the old data key after ${MAX_PASSES} passes: is a node running that does not know rotations? Run again once it is upgraded`);
    }
    const secrets = await sweepSecrets(ctx, projectId, from, to, batchSize);
    const kmsKeyVersions = await ctx.repo(cmekRepository).resealKeys(projectId, fromKeyId, toKeyId);
    const dynamicSecrets = await ctx.repo(dynamicSecretRepository).resealInputs(projectId, fromKeyId, toKeyId);
    const leases = await ctx.repo(leaseRepository).resealHeldData(projectId, fromKeyId, toKeyId);
    const certificateSecrets = await resealCertificateSecrets(ctx, projectId, certFromKeyId, certToKeyId);
    moved.secrets += secrets.moved;
    moved.kmsKeyVersions += kmsKeyVersions;
    moved.dynamicSecrets += dynamicSecrets;
    moved.leases += leases;
    moved.certificateSecrets += certificateSecrets;
    const thisPass = secrets.moved + secrets.raced + kmsKeyVersions + dynamicSecrets + leases + certificateSecrets;
    options.onProgress?.({ step: "swept", pass: passes, moved: thisPass });
    if (thisPass === 0) break;
  }

  const [oldKey, oldCertificateKey] = await ctx.withTransaction(async (tx) => {
    await tablesOf(tx.storage, keyTables).dataKeyRotations.delete({ id: projectId });
    return [await retire(tx, projectId, fromKeyId), await retire(tx, projectId, certFromKeyId)];
  });
  forgetKeyRotations(ctx);
  return {
    projectId,
    fromKeyId,
    toKeyId,
    resumed,
    moved,
    passes,
    oldKey,
    certificateKey: { fromKeyId: certFromKeyId, toKeyId: certToKeyId, oldKey: oldCertificateKey },
  };
}

/** Deletes a key the rotation replaced, unless something else still uses it (an organization's key). */
async function retire(tx: Context, projectId: string, keyId: string): Promise<"deleted" | "kept"> {
  const k = tablesOf(tx.storage, keyTables);
  const p = tablesOf(tx.storage, accessTables).projects;
  const old = await k.kmsKeys.get(keyId);
  const stillUsed = (await p.count({ kmsSecretManagerKeyId: keyId })) + (await p.count({ kmsCertificateKeyId: keyId }));
  if (!old || old.projectId !== projectId || stillUsed > 0) return "kept";
  await k.kmsKeys.delete({ id: keyId });
  return "deleted";
}

async function announce(ctx: Context, orgId: string, projectId: string, fromKeyId: string, certFromKeyId: string): Promise<KeyRow<"dataKeyRotations">> {
  try {
    return await ctx.withTransaction(async (tx) => {
      const now = tx.clock.now();
      const toKeyId = await tx.keys.createDataKey(tx.storage, { orgId, projectId }, "secret-manager", now);
      const certToKeyId = await tx.keys.createDataKey(tx.storage, { orgId, projectId }, "certificates", now);
      const row = { id: projectId, fromKeyId, toKeyId, certFromKeyId, certToKeyId, phase: "announced", startedAt: now.toISOString(), updatedAt: now.toISOString() };
      await tablesOf(tx.storage, keyTables).dataKeyRotations.insert(row);
      return row;
    });
  } catch (thrown) {
    if (thrown instanceof UniqueViolationError) throw new Error(`a data-key rotation of project ${projectId} is already under way (another run?)`);
    throw thrown;
  }
}
