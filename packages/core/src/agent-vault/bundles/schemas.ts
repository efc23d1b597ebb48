import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";

/** Request and response shapes of access bundles (DESIGN.md §7). */

const GRANTEE_TYPES = ["user", "identity"] as const;

export const grantSchema = z.strictObject({
  type: z.enum(GRANTEE_TYPES),
  id: z.string().min(1).max(255).describe("The user's or the machine identity's id"),
});

export const accessBundleSchema = z.strictObject({
  id: uuid,
  projectId: uuid,
  name: z.string(),
  description: z.string(),
  serviceIds: z.array(uuid).describe("Proxied services of the bundle's project"),
  grants: z.array(grantSchema).describe("Users and machine identities that may open agent sessions on the bundle"),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export type AccessBundleObject = z.infer<typeof accessBundleSchema>;

const MAX_MEMBERS = 100;
const bundleName = z.string().trim().min(1).max(64);
const description = z.string().max(500);
const serviceIds = z.array(z.string().min(1).max(255)).max(MAX_MEMBERS);
const grants = z.array(grantSchema).max(MAX_MEMBERS);

export const createBundleInput = z.object({
  projectId: z.string().min(1).max(255),
  name: bundleName,
  description: description.default(""),
  serviceIds: serviceIds.default([]),
  grants: grants.default([]),
});

export const listBundlesInput = z.object({ projectId: z.string().min(1).max(255) });

const bundleRef = { bundleId: z.string().min(1).max(255) };
export const bundleRefInput = z.object(bundleRef);

/** `serviceIds` and `grants`, when present, replace the whole set. */
export const updateBundleInput = z.object({
  ...bundleRef,
  name: bundleName.optional(),
  description: description.optional(),
  serviceIds: serviceIds.optional(),
  grants: grants.optional(),
});

export const bundleOutput = z.object({ bundle: accessBundleSchema });
