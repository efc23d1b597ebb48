import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { environmentSlug } from "../../secret-manager/input-fields.js";
import { secretPathSchema } from "../../secret-manager/paths.js";
import { CREDENTIAL_ROLES, credentialsInputSchema, HEADER_PURPOSES, SUBSTITUTION_SURFACES } from "../brokering/credentials.js";
import { hostPatternField } from "../brokering/host-pattern.js";

/** Request and response shapes of proxied services (SPEC.md "Proxied service", DESIGN.md §7). */

/** SPEC.md's credential; a field that does not apply to the credential's role is null. */
export const credentialSchema = z.strictObject({
  id: uuid,
  serviceId: uuid,
  role: z.enum(CREDENTIAL_ROLES),
  secretKey: z.string().nullable(),
  headerName: z.string().nullable(),
  headerPrefix: z.string().nullable(),
  headerPurpose: z.enum(HEADER_PURPOSES).nullable(),
  placeholderKey: z.string().nullable(),
  placeholderValue: z.string().nullable(),
  substitutionSurfaces: z.array(z.enum(SUBSTITUTION_SURFACES)),
  dynamicSecretName: z.string().nullable(),
  dynamicSecretField: z.string().nullable(),
});

export const proxiedServiceSchema = z.strictObject({
  id: uuid,
  folderId: uuid,
  name: z.string(),
  hostPattern: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  lastUsedAt: isoDateTime.nullable().describe("Last time an agent proxy brokered a request with it; null until then"),
  isEnabled: z.boolean(),
  credentials: z.array(credentialSchema),
});

export type ProxiedServiceObject = z.infer<typeof proxiedServiceSchema>;

const serviceName = z.string().trim().min(1).max(64);
const hostPattern = hostPatternField(255).pipe(z.string().min(1));

const folderLocation = {
  projectId: z.string().min(1).max(255),
  environment: environmentSlug,
  secretPath: secretPathSchema.default("/"),
};

export const createServiceInput = z.object({
  ...folderLocation,
  name: serviceName,
  hostPattern,
  isEnabled: z.boolean().default(true),
  credentials: credentialsInputSchema,
});

export const listServicesInput = z.object(folderLocation);

const serviceRef = { serviceId: z.string().min(1).max(255) };
export const serviceRefInput = z.object(serviceRef);

/** SPEC.md's PATCH: `credentials`, when present, replaces the whole collection. */
export const updateServiceInput = z.object({
  ...serviceRef,
  name: serviceName.optional(),
  hostPattern: hostPattern.optional(),
  isEnabled: z.boolean().optional(),
  credentials: credentialsInputSchema.optional(),
});

export const serviceOutput = z.object({ service: proxiedServiceSchema });
