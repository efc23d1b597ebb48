import { describe, expect, it } from "vitest";
import {
  alertBeforeSchema,
  customExtensionSchema,
  issuanceAttributesSchema,
  profileDefaultsSchema,
  subjectAltNameSchema,
  targetConfigSchema,
} from "../../src/cert-manager/schemas.js";

describe("profileDefaultsSchema", () => {
  it("accepts every field of SPEC.md's defaults", () => {
    const defaults = {
      ttlDays: 90,
      commonName: "app.example.com",
      organization: "Acme",
      organizationalUnit: "",
      country: "DE",
      state: "Berlin",
      locality: "Berlin",
      keyAlgorithm: "RSA_2048",
      signatureAlgorithm: "RSA-SHA256",
      keyUsages: ["digital_signature", "key_encipherment"],
      extendedKeyUsages: ["client_auth", "server_auth"],
      basicConstraints: { isCA: false, pathLength: 0 },
      subjectAltNames: [{ type: "dns_name", value: "app.example.com" }, { value: "10.1.2.3" }],
      domainComponents: ["example", "com"],
      customExtensions: [{ oid: "1.3.6.1.4.1.55555.1", label: "team", critical: false, value: "payments" }],
    };
    expect(profileDefaultsSchema.parse(defaults)).toEqual(defaults);
  });

  const rejected: [string, Record<string, unknown>][] = [
    ["an unknown field", { keyUsage: ["digital_signature"] }],
    ["ttlDays 0", { ttlDays: 0 }],
    ["a fractional ttlDays", { ttlDays: 1.5 }],
    ["an unknown key algorithm", { keyAlgorithm: "RSA_1024" }],
    ["an unknown signature algorithm", { signatureAlgorithm: "RSA-SHA1" }],
    ["an unknown key usage", { keyUsages: ["sign_everything"] }],
    ["an unknown EKU", { extendedKeyUsages: ["any"] }],
    ["a three-letter country", { country: "DEU" }],
    ["a 65-character commonName", { commonName: "a".repeat(65) }],
    ["a dotted domain component", { domainComponents: ["example.com"] }],
    ["a negative pathLength", { basicConstraints: { isCA: true, pathLength: -1 } }],
    ["a duplicate custom extension OID", { customExtensions: [{ oid: "1.2.3", value: "a" }, { oid: "1.2.3", value: "b" }] }],
  ];
  it.each(rejected)("rejects %s", (_, value) => {
    expect(profileDefaultsSchema.safeParse(value).success).toBe(false);
  });
});

describe("issuanceAttributesSchema", () => {
  it.each(["90d", "12h", "30m", "1y"])("accepts ttl %s", (ttl) => {
    expect(issuanceAttributesSchema.safeParse({ ttl }).success).toBe(true);
  });
  it.each(["90", "1.5d", "d", "12 h", "1mo"])("rejects ttl %s", (ttl) => {
    expect(issuanceAttributesSchema.safeParse({ ttl }).success).toBe(false);
  });
  it("has no ttlDays: a request states its lifetime as ttl", () => {
    expect(issuanceAttributesSchema.safeParse({ ttlDays: 5 }).success).toBe(false);
  });
});

describe("subjectAltNameSchema", () => {
  const valid: [string | undefined, string][] = [
    ["dns_name", "example.com"],
    ["dns_name", "*.example.com"],
    ["dns_name", "localhost"],
    ["ip_address", "192.0.2.1"],
    ["ip_address", "2001:db8::1"],
    ["email", "ops@example.com"],
    ["uri", "spiffe://example.com/workload"],
    ["uri", "https://example.com/path?q=1"],
    [undefined, "example.com"],
    [undefined, "::1"],
  ];
  it.each(valid)("accepts %s %s", (type, value) => {
    expect(subjectAltNameSchema.safeParse(type ? { type, value } : { value }).success).toBe(true);
  });
  const invalid: [string, string][] = [
    ["dns_name", "exa mple.com"],
    ["dns_name", "a.*.example.com"],
    ["dns_name", "-bad.example.com"],
    ["dns_name", "1.2.3.4"],
    ["ip_address", "300.1.1.1"],
    ["ip_address", "example.com"],
    ["email", "no-at-sign"],
    ["email", "a@b@c.com"],
    ["uri", "no-scheme"],
    ["uri", "https://exämple.com"],
    ["x400", "whatever"],
  ];
  it.each(invalid)("rejects %s %s", (type, value) => {
    expect(subjectAltNameSchema.safeParse({ type, value }).success).toBe(false);
  });
});

describe("customExtensionSchema", () => {
  it("fills label and critical", () => {
    expect(customExtensionSchema.parse({ oid: "1.2.840.1", value: "x" })).toEqual({ oid: "1.2.840.1", label: "", critical: false, value: "x" });
  });
  const invalid: [string, Record<string, unknown>][] = [
    ["a non-dotted OID", { oid: "abc", value: "x" }],
    ["a first arc above 2", { oid: "3.1", value: "x" }],
    ["a second arc above 39 under arc 1", { oid: "1.40", value: "x" }],
    ["an OID with a leading zero", { oid: "1.02.3", value: "x" }],
    ["a managed extension (SAN)", { oid: "2.5.29.17", value: "x" }],
    ["odd hex after DER:", { oid: "1.2.3", value: "DER:abc" }],
    ["hex that is not one DER element", { oid: "1.2.3", value: "DER:0203" }],
    ["two DER elements", { oid: "1.2.3", value: "DER:05000500" }],
  ];
  it.each(invalid)("rejects %s", (_, value) => {
    expect(customExtensionSchema.safeParse(value).success).toBe(false);
  });
});

describe("targetConfigSchema and alertBeforeSchema", () => {
  it("defaults the lists and the port", () => {
    expect(targetConfigSchema.parse({ domains: ["example.com"] })).toEqual({ ipRanges: [], domains: ["example.com"], ports: "443" });
  });
  it("rejects unknown fields", () => {
    expect(targetConfigSchema.safeParse({ hosts: [] }).success).toBe(false);
  });
  it.each([
    ["30d", true],
    ["2w", true],
    ["6m", true],
    ["1y", true],
    ["30", false],
    ["1h", false],
    ["d", false],
    ["-1d", false],
  ])("alertBefore %s → %s", (value, ok) => {
    expect(alertBeforeSchema.safeParse(value).success).toBe(ok);
  });
});
