import { z } from "zod";

/** Shapes shared by several areas. */
export const isoDateTime = z.string().describe("ISO 8601 date-time");
export const uuid = z.string().describe("UUID");
export const email = z.email().max(255);

/** Lower-case letters, digits and single hyphens. */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const emptyInput = z.object({});

export const organizationSchema = z.object({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  createdAt: isoDateTime,
});

export const userSchema = z.object({
  id: uuid,
  email: z.string(),
  username: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  isEmailVerified: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** How a possibly temporary grant (membership role, identity privilege) appears in answers. */
export const temporaryGrantFields = {
  isTemporary: z.boolean(),
  temporaryMode: z.string().nullable(),
  temporaryRange: z.string().nullable(),
  temporaryAccessStartTime: isoDateTime.nullable(),
  temporaryAccessEndTime: isoDateTime.nullable(),
};

export interface TemporaryGrantRow {
  isTemporary: boolean;
  temporaryMode: string | null;
  temporaryRange: string | null;
  temporaryAccessStartTime: string | null;
  temporaryAccessEndTime: string | null;
}

export const temporaryGrantOf = (row: TemporaryGrantRow): TemporaryGrantRow => ({
  isTemporary: row.isTemporary,
  temporaryMode: row.temporaryMode,
  temporaryRange: row.temporaryRange,
  temporaryAccessStartTime: row.temporaryAccessStartTime,
  temporaryAccessEndTime: row.temporaryAccessEndTime,
});

/**
 * Input fields an HTTP client sends in the query string even on a request with a body (a body
 * whose shape a specification fixes, say). Reads take every field from the query already; this
 * marks the exceptions for the other methods. A registry of its own, so nothing of it reaches
 * the JSON Schema of the OpenAPI document.
 */
export const queryParams = z.registry<Record<string, never>>();

export function queryParam<T extends z.ZodType>(schema: T): T {
  queryParams.add(schema, {});
  return schema;
}

/**
 * An answer that is a file rather than JSON (a DER CRL): its media type and its bytes in base64.
 * An adapter serves the bytes themselves with that type (http-node: route `kind: "file"`).
 */
export const fileOutput = (contentType: string) =>
  z.object({ contentType: z.literal(contentType), base64: z.string().describe(`The file's bytes (${contentType}), base64`) });
