import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { pagination, projectIdField, recordId, searchField } from "../query-fields.js";
import { targetConfigSchema } from "../schemas.js";

/** Request and response shapes of discovery jobs (SPEC.md "Discovery job", DESIGN.md §8). */

export const SCAN_STATUSES = ["pending", "running", "completed", "failed"] as const;
export type ScanState = (typeof SCAN_STATUSES)[number];

const jobName = z
  .string()
  .min(1)
  .max(100)
  .refine((name) => name.trim() !== "", "must not be blank");
const jobDescription = z.string().max(255);
const scanIntervalDays = z.int().min(1).max(365);
/** Strongroom scans from the server itself; it has no gateways, so only null is accepted. */
const gatewayRef = z.uuid().nullable();

/** The targetConfig as stored and returned: SPEC.md's three fields, normalised (defaults filled in). */
export const storedTargetConfigSchema = z.strictObject({
  ipRanges: z.array(z.string()),
  domains: z.array(z.string()),
  ports: z.string(),
});

/** SPEC.md's object field for field. `gatewayId` and `gatewayPoolId` are always null. */
export const discoveryJobSchema = z.strictObject({
  id: uuid,
  name: z.string(),
  description: z.string(),
  discoveryType: z.enum(["network"]),
  targetConfig: storedTargetConfigSchema,
  isAutoScanEnabled: z.boolean(),
  scanIntervalDays: z.int(),
  gatewayId: uuid.nullable(),
  gatewayPoolId: uuid.nullable(),
  isActive: z.boolean().describe("False pauses automatic scans"),
  lastScanStatus: z.enum(SCAN_STATUSES).nullable().describe("Null until the first scan is requested"),
  lastScanJobId: uuid.nullable().describe("A new id for every scan"),
  lastScanMessage: z.string().nullable(),
  lastScannedAt: isoDateTime.nullable().describe("When the latest scan finished"),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const createDiscoveryJobInput = z.object({
  projectId: projectIdField,
  name: jobName,
  targetConfig: targetConfigSchema,
  description: jobDescription.default(""),
  discoveryType: z.enum(["network"]).default("network"),
  isAutoScanEnabled: z.boolean().default(false),
  scanIntervalDays: scanIntervalDays.default(7),
  gatewayId: gatewayRef.optional(),
  gatewayPoolId: gatewayRef.optional(),
});

export const updateDiscoveryJobInput = z.object({
  id: recordId,
  name: jobName.optional(),
  targetConfig: targetConfigSchema.optional(),
  description: jobDescription.optional(),
  isAutoScanEnabled: z.boolean().optional(),
  scanIntervalDays: scanIntervalDays.optional(),
  isActive: z.boolean().optional(),
  gatewayId: gatewayRef.optional(),
  gatewayPoolId: gatewayRef.optional(),
});

export const listDiscoveryJobsInput = z.object({ projectId: projectIdField, ...pagination, search: searchField });
export const discoveryJobRefInput = z.object({ id: recordId });

export const discoveryJobListOutput = z.object({ discoveryJobs: z.array(discoveryJobSchema), totalCount: z.int() });

export type DiscoveryJobObject = z.infer<typeof discoveryJobSchema>;
