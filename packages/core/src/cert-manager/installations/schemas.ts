import { z } from "zod";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { pagination, projectIdField, recordId, searchField } from "../query-fields.js";

/** Request and response shapes of installations (SPEC.md "Installation", DESIGN.md §8). */

/** SPEC.md's object field for field. */
export const installationSchema = z.strictObject({
  id: uuid,
  locationType: z.string().describe("`network` for locations found by a discovery scan"),
  locationFingerprint: z.string().describe("SHA-256 (hex) of the location; stable across scans"),
  name: z.string().describe("host:port"),
  type: z.string().describe("What serves the certificate; `unknown` for network scans"),
  primaryCertName: z.string().describe("Common name (or first SAN) of the leaf certificate"),
  discoveryName: z.string().describe("The discovery job that saw it last"),
  lastSeenAt: isoDateTime,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  locationDetails: z.record(z.string(), z.unknown()).describe("{ipAddress | fqdn, port, protocol: tls}; a domain also carries the ipAddress it resolved to"),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  certificatesCount: z.int(),
});

export const listInstallationsInput = z.object({
  projectId: projectIdField,
  discoveryId: recordId.optional(),
  certificateId: recordId.optional(),
  ...pagination,
  search: searchField.describe("Case-insensitive substring of the name, host name or IP address"),
});

export const installationRefInput = z.object({ installationId: recordId });

const linkedCertificateSchema = z.strictObject({
  id: uuid,
  commonName: z.string().nullable(),
  fingerprint: z.string(),
  serialNumber: z.string(),
  notAfter: isoDateTime,
  isCA: z.boolean(),
});

export const installationListOutput = z.object({ installations: z.array(installationSchema), totalCount: z.int() });
export const installationOutput = z.object({
  installation: installationSchema,
  certificates: z.array(linkedCertificateSchema).describe("What the location presented at its latest scan, leaf first"),
});

export type InstallationObject = z.infer<typeof installationSchema>;
export type LinkedCertificateObject = z.infer<typeof linkedCertificateSchema>;
