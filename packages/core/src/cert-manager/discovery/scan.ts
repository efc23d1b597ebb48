/**
 * Running a discovery scan: claim it (pending), dial every target (running), record what answered,
 * and finish (completed or failed). Every write after the claim is conditional on the scan's id,
 * so a superseded or deleted job is never written by a scan it no longer owns.
 */
import { defineService, type Context } from "../../kernel/context.js";
import { BadRequestError, StrongroomError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { addressRefusal, classifyAddress } from "../../net/address-class.js";
import { certificateRepository } from "../certificates/repository.js";
import { installationRepository } from "../installations/repository.js";
import { certManagerPorts } from "../io.js";
import type { ScanResult } from "../ports.js";
import type { DiscoveryJobRow } from "../tables.js";
import { discoveryRepository } from "./repository.js";
import { expandTargets } from "./targets.js";

/** A pending or running scan older than this is taken to have died with its node, and may be replaced. */
export const STALE_SCAN_MS = 60 * 60 * 1000;

const inProgress = (job: DiscoveryJobRow, now: Date): boolean =>
  (job.lastScanStatus === "pending" || job.lastScanStatus === "running") &&
  job.scanRequestedAt !== null &&
  now.getTime() - Date.parse(job.scanRequestedAt) < STALE_SCAN_MS;

/**
 * Marks a new scan of the job pending and returns the updated row. Refused (400) while another
 * scan is in progress; of two concurrent claims exactly one wins.
 */
export async function claimScan(ctx: Context, job: DiscoveryJobRow): Promise<DiscoveryJobRow> {
  const nowDate = ctx.clock.now();
  if (inProgress(job, nowDate)) throw new BadRequestError("A scan of this discovery job is already in progress");
  const now = nowDate.toISOString();
  const patch = {
    lastScanStatus: "pending",
    lastScanJobId: newId(),
    lastScanMessage: "Scan requested",
    scanRequestedAt: now,
    updatedAt: now,
  } satisfies Partial<DiscoveryJobRow>;
  const claimed = await ctx.repo(discoveryRepository).updateClaimed(job, patch);
  if (!claimed) throw new BadRequestError("A scan of this discovery job is already in progress");
  return { ...job, ...patch };
}

function summarize(results: ScanResult[], created: number): string {
  const count = (status: ScanResult["status"]) => results.filter((r) => r.status === status).length;
  const parts = [`${count("ok")} presented certificates (${created} new)`];
  if (count("closed")) parts.push(`${count("closed")} closed`);
  if (count("timeout")) parts.push(`${count("timeout")} timed out`);
  if (count("error")) parts.push(`${count("error")} failed`);
  return `Scanned ${results.length} endpoint${results.length === 1 ? "" : "s"}: ${parts.join(", ")}`;
}

/** What the operator may read about a failure: our own errors say what went wrong; anything else stays in the logs. */
const failureMessage = (error: unknown): string =>
  error instanceof StrongroomError ? `Scan failed: ${error.message}` : "Scan failed: internal error";

/** Runs the claimed scan `job.lastScanJobId` to its end. Never throws: the outcome is written on the job. */
export async function runScan(ctx: Context, job: DiscoveryJobRow): Promise<void> {
  const jobs = ctx.repo(discoveryRepository);
  const mine = { id: job.id, lastScanJobId: job.lastScanJobId };
  const finish = (status: "completed" | "failed", message: string) => {
    const now = ctx.clock.now().toISOString();
    return jobs.updateClaimed(mine, { lastScanStatus: status, lastScanMessage: message, lastScannedAt: now, updatedAt: now });
  };
  try {
    // Checked again at run time: the configuration may have changed since the job was saved.
    const targets = expandTargets(job.targetConfig, { allowPrivateTargets: ctx.config.allowPrivateTargets });
    const started = await jobs.updateClaimed(mine, {
      lastScanStatus: "running",
      lastScanMessage: `Scanning ${targets.length} endpoint${targets.length === 1 ? "" : "s"}`,
      updatedAt: ctx.clock.now().toISOString(),
    });
    if (!started) return;
    const results = await certManagerPorts(ctx).tls.scan(targets, {
      concurrency: ctx.config.scanConcurrency,
      timeoutMs: ctx.config.scanTimeoutMs,
      refuseAddress: (address) => addressRefusal(classifyAddress(address), ctx.config.allowPrivateTargets),
    });
    let created = 0;
    for (const result of results) {
      if (result.status !== "ok") continue;
      // A job deleted or re-scanned meanwhile no longer owns what this scan found.
      if (!(await jobs.holdsClaim(mine))) return;
      const now = ctx.clock.now().toISOString();
      const chain = await ctx.repo(certificateRepository).recordPresentedChain(job.projectId, result.certificates, now);
      created += chain.created;
      const leaf = result.certificates[0]!;
      await ctx.repo(installationRepository).recordSighting({
        projectId: job.projectId,
        discovery: { id: job.id, name: job.name },
        result,
        certificateIds: chain.ids,
        primaryCertName: leaf.commonName ?? leaf.subjectAltNames[0]?.value ?? "",
        now,
      });
    }
    await finish("completed", summarize(results, created));
  } catch (error) {
    await finish("failed", failureMessage(error)).catch(() => undefined);
  }
}

/** Scans started by requests and still running, per instance, so they can be awaited. */
const backgroundScans = defineService("background-scans", () => new Set<Promise<void>>());

/** Runs the claimed scan after the request that asked for it has been answered. */
export function runScanInBackground(ctx: Context, job: DiscoveryJobRow): void {
  const running = ctx.service(backgroundScans);
  const scan = runScan(ctx, job).finally(() => running.delete(scan));
  running.add(scan);
}

/** Resolves once every background scan of the instance has finished (graceful shutdown, tests). */
export async function settleBackgroundScans(ctx: Context): Promise<void> {
  const running = ctx.service(backgroundScans);
  while (running.size > 0) await Promise.allSettled([...running]);
}
