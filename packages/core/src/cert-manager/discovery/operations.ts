import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { blankToUndefined } from "../query-fields.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import type { DiscoveryJobRow } from "../tables.js";
import { discoveryRepository } from "./repository.js";
import { claimScan, runScanInBackground } from "./scan.js";
import {
  createDiscoveryJobInput,
  discoveryJobListOutput,
  discoveryJobRefInput,
  discoveryJobSchema,
  listDiscoveryJobsInput,
  updateDiscoveryJobInput,
} from "./schemas.js";
import { type TargetConfigInput, expandTargets } from "./targets.js";
import { toDiscoveryJobObject } from "./view.js";

/** Every target is checked when saved, so a job that could never scan (or may not) is refused with the target named. */
const checkTargets = (ctx: Context, targetConfig: TargetConfigInput): void => {
  expandTargets(targetConfig, { allowPrivateTargets: ctx.config.allowPrivateTargets });
};

function refuseGateways(input: { gatewayId?: string | null; gatewayPoolId?: string | null }): void {
  if (input.gatewayId || input.gatewayPoolId) {
    throw new BadRequestError(
      "Strongroom has no gateways: scans run from the server itself (private networks need STRONGROOM_ALLOW_PRIVATE_TARGETS=true)",
    );
  }
}

async function assertNameFree(ctx: Context, projectId: string, name: string): Promise<void> {
  if (await ctx.repo(discoveryRepository).byName(projectId, name)) {
    throw new BadRequestError(`A discovery job named '${name}' already exists in this project`);
  }
}

const discoveryJob = (action: CertificateAction) =>
  certificateRecord("Discovery job", "pki-discovery", action, (ctx, input: { id: string }) => ctx.repo(discoveryRepository).get(input.id));

export const discoveryOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Create a network discovery job. Every target is validated now: CIDR blocks no wider than /24, at most 256 addresses, " +
      "private and loopback addresses only when the server allows private targets. Answers the job itself, not wrapped.",
    audience: "principal",
    input: createDiscoveryJobInput,
    output: discoveryJobSchema,
    use: certificateProject("pki-discovery", "create"),
    async run(ctx, _actor, input, { project }) {
      refuseGateways(input);
      checkTargets(ctx, input.targetConfig);
      await assertNameFree(ctx, project.id, input.name);
      const now = ctx.clock.now().toISOString();
      const row: DiscoveryJobRow = {
        id: newId(),
        projectId: project.id,
        name: input.name,
        description: input.description,
        discoveryType: input.discoveryType,
        targetConfig: input.targetConfig,
        isAutoScanEnabled: input.isAutoScanEnabled,
        scanIntervalDays: input.scanIntervalDays,
        gatewayId: null,
        gatewayPoolId: null,
        isActive: true,
        lastScanStatus: null,
        lastScanJobId: null,
        lastScanMessage: null,
        lastScannedAt: null,
        scanRequestedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.repo(discoveryRepository).insert(row);
      return toDiscoveryJobObject(row);
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the discovery jobs of a project, oldest first; `search` matches the name, case-insensitively",
    audience: "principal",
    input: listDiscoveryJobsInput,
    output: discoveryJobListOutput,
    use: certificateProject("pki-discovery", "read"),
    async run(ctx, _actor, input, { project }) {
      const { rows, totalCount } = await ctx.repo(discoveryRepository).page(project.id, blankToUndefined(input.search), input);
      return { discoveryJobs: rows.map(toDiscoveryJobObject), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a discovery job and the state of its latest scan",
    audience: "principal",
    input: discoveryJobRefInput,
    output: discoveryJobSchema,
    use: discoveryJob("read"),
    async run(_ctx, _actor, _input, { record }) {
      return toDiscoveryJobObject(record);
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a discovery job; a new targetConfig is validated like at creation",
    audience: "principal",
    input: updateDiscoveryJobInput,
    output: discoveryJobSchema,
    use: discoveryJob("edit"),
    async run(ctx, _actor, input, { record: row }) {
      refuseGateways(input);
      if (input.targetConfig) checkTargets(ctx, input.targetConfig);
      if (input.name !== undefined && input.name !== row.name) await assertNameFree(ctx, row.projectId, input.name);
      const patch: Partial<DiscoveryJobRow> = { updatedAt: ctx.clock.now().toISOString() };
      for (const key of ["name", "description", "targetConfig", "isAutoScanEnabled", "scanIntervalDays", "isActive"] as const) {
        if (input[key] !== undefined) Object.assign(patch, { [key]: input[key] });
      }
      await ctx.repo(discoveryRepository).update(row.id, patch);
      return toDiscoveryJobObject({ ...row, ...patch });
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a discovery job; the installations and certificates it found are kept",
    audience: "principal",
    input: discoveryJobRefInput,
    output: discoveryJobSchema,
    use: discoveryJob("delete"),
    async run(ctx, _actor, _input, { record }) {
      await ctx.repo(discoveryRepository).remove(record.id);
      return toDiscoveryJobObject(record);
    },
  }),

  scan: defineOperation({
    name: "scan",
    summary:
      "Start a scan now. Answers at once with lastScanStatus `pending` and a new lastScanJobId; the scan then runs on the server " +
      "(`running`, then `completed` or `failed` with lastScanMessage and lastScannedAt): poll the job. 400 while a scan is in progress.",
    audience: "principal",
    input: discoveryJobRefInput,
    output: discoveryJobSchema,
    use: discoveryJob("edit"),
    async run(ctx, _actor, _input, { record }) {
      const claimed = await claimScan(ctx, record);
      runScanInBackground(ctx, claimed);
      return toDiscoveryJobObject(claimed);
    },
  }),
};
