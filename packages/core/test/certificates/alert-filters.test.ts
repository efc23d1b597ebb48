import { describe, expect, it } from "vitest";
import { type CertificateFacts, matchesFilters, wildcardMatch } from "../../src/cert-manager/alerts/filters.js";
import type { AlertFilter } from "../../src/cert-manager/alerts/schemas.js";

const leaf: CertificateFacts = { profileName: "web-servers", commonName: "api.Example.com", subjectAltNames: ["api.example.com", "www.example.com"], isCA: false };
const ca: CertificateFacts = { profileName: null, commonName: "Example Issuing CA", subjectAltNames: [], isCA: true };
const f = (field: AlertFilter["field"], operator: AlertFilter["operator"], value: string): AlertFilter => ({ field, operator, value });

describe("wildcardMatch", () => {
  it.each([
    ["*.example.com", "api.example.com", true],
    ["*.example.com", "example.com", false],
    ["api.*.com", "API.EXAMPLE.COM", true],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["*", "", true],
    ["", "", true],
    ["", "x", false],
    ["**x**", "abcx", true],
  ])("%s against %s is %s", (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
  });

  it("stays fast on patterns that make backtracking regular expressions explode", () => {
    const started = performance.now();
    expect(wildcardMatch(`${"*a".repeat(50)}b`, "a".repeat(5000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("matchesFilters", () => {
  it("selects every non-CA certificate when there are no filters", () => {
    expect(matchesFilters([], leaf)).toBe(true);
    expect(matchesFilters([], ca)).toBe(false);
  });

  it("includes CA certificates only when the last include_cas filter says true", () => {
    expect(matchesFilters([f("include_cas", "equals", "true")], ca)).toBe(true);
    expect(matchesFilters([f("include_cas", "equals", "true"), f("include_cas", "equals", "false")], ca)).toBe(false);
    expect(matchesFilters([f("include_cas", "equals", "true")], leaf)).toBe(true);
  });

  it("compares case-insensitively with each operator", () => {
    expect(matchesFilters([f("common_name", "equals", "API.example.com")], leaf)).toBe(true);
    expect(matchesFilters([f("common_name", "contains", "EXAMPLE")], leaf)).toBe(true);
    expect(matchesFilters([f("common_name", "starts_with", "api.")], leaf)).toBe(true);
    expect(matchesFilters([f("common_name", "ends_with", ".org")], leaf)).toBe(false);
    expect(matchesFilters([f("common_name", "matches", "*.example.com")], leaf)).toBe(true);
  });

  it("matches a SAN filter when any name matches, and requires every filter", () => {
    expect(matchesFilters([f("san", "equals", "www.example.com")], leaf)).toBe(true);
    expect(matchesFilters([f("san", "equals", "mail.example.com")], leaf)).toBe(false);
    expect(matchesFilters([f("san", "matches", "www.*"), f("profile_name", "equals", "web-servers")], leaf)).toBe(true);
    expect(matchesFilters([f("san", "matches", "www.*"), f("profile_name", "equals", "other")], leaf)).toBe(false);
  });

  it("never matches a profile_name filter on a certificate without a profile", () => {
    expect(matchesFilters([f("profile_name", "contains", ""), f("include_cas", "equals", "true")], ca)).toBe(false);
  });
});
