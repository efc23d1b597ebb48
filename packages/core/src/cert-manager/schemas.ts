/**
 * Request schemas for the certificate manager. The API, the operations and the OpenAPI document
 * all use these (DESIGN.md §2), so every rule a caller can break up front lives here.
 */
import { z } from "zod";
import { KEY_ALGORITHMS, SIGNATURE_ALGORITHMS } from "../x509/algorithms.js";
import { customExtensionValueProblem } from "../x509/custom-extension-value.js";
import { parseIp } from "../net/ip.js";
import { isEmailAddress, isHostname, isOid, isUri } from "../x509/names-syntax.js";
import { TTL_PATTERN } from "./durations.js";
import { EXTENDED_KEY_USAGES, KEY_USAGES, MANAGED_EXTENSION_OIDS, SAN_TYPES, type SanType } from "../x509/vocabulary.js";

export const keyAlgorithmSchema = z.enum(KEY_ALGORITHMS);
export const signatureAlgorithmSchema = z.enum(SIGNATURE_ALGORITHMS);
export const keyUsageSchema = z.enum(KEY_USAGES);
export const extendedKeyUsageSchema = z.enum(EXTENDED_KEY_USAGES);
export const sanTypeSchema = z.enum(SAN_TYPES);

/** SPEC.md's PATCH sample sends SANs as `{value}` alone, so a missing type is read off the value. */
export function inferSanType(value: string): SanType {
  if (parseIp(value)) return "ip_address";
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return "uri";
  if (value.includes("@")) return "email";
  return "dns_name";
}

const SAN_CHECKS: Record<SanType, (value: string) => boolean> = {
  dns_name: (value) => isHostname(value, { wildcard: true }),
  ip_address: (value) => parseIp(value) !== null,
  email: isEmailAddress,
  uri: isUri,
};

export const subjectAltNameSchema = z
  .object({ type: sanTypeSchema.optional(), value: z.string().min(1).max(1024) })
  .superRefine((san, ctx) => {
    const type = san.type ?? inferSanType(san.value);
    if (!SAN_CHECKS[type](san.value)) ctx.addIssue({ code: "custom", path: ["value"], message: `not a valid ${type}` });
  });

const managedOids = new Set<string>(Object.values(MANAGED_EXTENSION_OIDS));

export const customExtensionSchema = z
  .object({
    oid: z.string().refine(isOid, "must be a dotted object identifier such as 1.3.6.1.4.1.99999.1"),
    label: z.string().max(255).default(""),
    critical: z.boolean().default(false),
    /** `DER:<hex>` for raw DER, otherwise text written as a UTF8String (see custom-extension-value.ts). */
    value: z.string().max(8192),
  })
  .superRefine((extension, ctx) => {
    if (managedOids.has(extension.oid)) {
      ctx.addIssue({ code: "custom", path: ["oid"], message: "this extension is set from the dedicated fields (keyUsages, subjectAltNames, ...)" });
    }
    const problem = customExtensionValueProblem(extension.value);
    if (problem) ctx.addIssue({ code: "custom", path: ["value"], message: problem });
  });

export const basicConstraintsSchema = z.object({
  isCA: z.boolean(),
  /** Only meaningful when isCA; how many CA certificates may follow this one in a chain. */
  pathLength: z.int().min(0).max(16).optional(),
});

// Empty strings are accepted and mean "not set": stored profiles commonly carry "" for blanks.
// Lengths are RFC 5280's upper bounds for each attribute.
const subjectAttributeFields = {
  commonName: z.string().max(64).optional(),
  organization: z.string().max(64).optional(),
  organizationalUnit: z.string().max(64).optional(),
  country: z.string().regex(/^(?:[A-Za-z]{2})?$/, "must be a two-letter ISO 3166 code").optional(),
  state: z.string().max(128).optional(),
  locality: z.string().max(128).optional(),
};

/** Hostname order, most specific first: `["example", "com"]` for example.com. */
const domainComponentSchema = z.string().regex(/^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/, "must be one DNS label");

const issuanceFields = {
  ...subjectAttributeFields,
  keyAlgorithm: keyAlgorithmSchema.optional(),
  signatureAlgorithm: signatureAlgorithmSchema.optional(),
  keyUsages: z.array(keyUsageSchema).max(KEY_USAGES.length).optional(),
  extendedKeyUsages: z.array(extendedKeyUsageSchema).max(EXTENDED_KEY_USAGES.length).optional(),
  basicConstraints: basicConstraintsSchema.optional(),
  subjectAltNames: z.array(subjectAltNameSchema).max(100).optional(),
  domainComponents: z.array(domainComponentSchema).max(16).optional(),
  customExtensions: z
    .array(customExtensionSchema)
    .max(20)
    .refine((list) => new Set(list.map((e) => e.oid)).size === list.length, "each custom extension OID may appear once")
    .optional(),
};

/** A certificate profile's `defaults` (SPEC.md "Certificate profile"). */
export const profileDefaultsSchema = z.strictObject({
  ttlDays: z.int().min(1).max(36_500).optional(),
  ...issuanceFields,
});

const validityDate = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z" });

/**
 * `attributes` of an issuance request: the same fields as the defaults, with `ttl` in place of
 * `ttlDays`, and Infisical's names as well: `altNames` for `subjectAltNames`, and an explicit
 * validity (`notBefore`, `notAfter`) instead of a `ttl`.
 */
export const issuanceAttributesSchema = z
  .strictObject({
    ...issuanceFields,
    altNames: z.array(subjectAltNameSchema).max(100).optional(),
    ttl: z.string().regex(TTL_PATTERN, "must be a number and a unit: s, m, h, d, w or y (e.g. 90d, 12h)").optional(),
    notBefore: validityDate.optional(),
    notAfter: validityDate.optional(),
  })
  .superRefine((attributes, ctx) => {
    if (attributes.altNames && attributes.subjectAltNames) {
      ctx.addIssue({ code: "custom", path: ["altNames"], message: "send altNames or subjectAltNames, not both" });
    }
    if (attributes.ttl && (attributes.notBefore || attributes.notAfter)) {
      ctx.addIssue({ code: "custom", path: ["ttl"], message: "send either ttl or notBefore/notAfter, not both" });
    }
    if (attributes.notBefore && attributes.notAfter && !(Date.parse(attributes.notBefore) < Date.parse(attributes.notAfter))) {
      ctx.addIssue({ code: "custom", path: ["notAfter"], message: "notAfter must be later than notBefore" });
    }
  });

/** A discovery job's `targetConfig`; parsePorts and expandTargets apply the limits that need arithmetic. */
export const targetConfigSchema = z.strictObject({
  ipRanges: z.array(z.string().min(1).max(100)).max(256).default([]),
  domains: z.array(z.string().min(1).max(253)).max(256).default([]),
  /** Comma-separated ports and ranges, e.g. `443,8443,9000-9002`. */
  ports: z.string().min(1).max(1000).default("443"),
});

/** How long before an event an alert fires: days, weeks, months or years (`30d`, `2w`, `1m`, `1y`). */
export const alertBeforeSchema = z.string().regex(/^\d+[dwmy]$/, "must be a number and a unit: d, w, m or y (e.g. 30d)");

export type ProfileDefaults = z.infer<typeof profileDefaultsSchema>;
export type IssuanceAttributes = z.infer<typeof issuanceAttributesSchema>;
export type SubjectAltNameInput = z.infer<typeof subjectAltNameSchema>;
