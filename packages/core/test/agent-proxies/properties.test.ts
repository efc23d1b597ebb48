import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileHostPatterns,
  decideTraffic,
  matchHostPattern,
  normalizeHost,
  parseHostPatterns,
  type TrafficService,
} from "../../src/entries/agent.js";
import { isIcannPublicSuffix } from "../../src/net/public-suffix.js";

// A small alphabet so generated hosts and patterns collide often enough to exercise matches.
const label = fc.constantFrom("a", "b", "api", "x-1", "example", "com", "io");
const labels = (min: number, max: number) => fc.array(label, { minLength: min, maxLength: max });
const hostName = labels(1, 4).map((parts) => parts.join("."));
const port = fc.constantFrom(80, 443, 8443);
const patternText = fc
  .record({ wildcard: fc.boolean(), suffix: labels(1, 3), port: fc.option(port, { nil: null }) })
  .map(({ wildcard, suffix, port }) => `${wildcard ? "*." : ""}${suffix.join(".")}${port === null ? "" : `:${port}`}`);
/** Wildcards over public suffixes (`*.com`, `*.io`) are refused by design (see host-pattern.test.ts). */
const wildcardAccepted = (text: string): boolean => !text.startsWith("*.") || !isIcannPublicSuffix(text.slice(2).split(":")[0]!);
const patternList = fc.array(patternText, { minLength: 1, maxLength: 3 }).map((items) => items.join(", "));

/** Re-cases each character by a generated mask and optionally adds the root dot. */
const respelling = fc.record({ mask: fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), dot: fc.boolean() });
const respell = (host: string, { mask, dot }: { mask: boolean[]; dot: boolean }) =>
  [...host].map((ch, i) => (mask[i % mask.length] ? ch.toUpperCase() : ch)).join("") + (dot ? "." : "");

describe("host matching properties", () => {
  it("is insensitive to case and a trailing dot, in the host and in the pattern", () => {
    fc.assert(
      fc.property(patternText.filter(wildcardAccepted), hostName, port, respelling, respelling, (text, host, p, hostSpelling, patternSpelling) => {
        const [pattern] = parseHostPatterns(text);
        const expected = matchHostPattern(pattern!, host, p);
        expect(matchHostPattern(pattern!, respell(host, hostSpelling), p)).toBe(expected);
        const [host_, ...port_] = text.split(":");
        const [respelled] = parseHostPatterns([respell(host_!, patternSpelling), ...port_].join(":"));
        expect(matchHostPattern(respelled!, host, p)).toBe(expected);
      }),
    );
  });

  it("a wildcard matches exactly the hosts one label longer than its suffix that end with it", () => {
    fc.assert(
      fc.property(labels(1, 3).filter((suffix) => !isIcannPublicSuffix(suffix.join("."))), labels(1, 5), port, (suffix, hostLabels, p) => {
        const [pattern] = parseHostPatterns(`*.${suffix.join(".")}`);
        const matched = matchHostPattern(pattern!, hostLabels.join("."), p);
        if (hostLabels.length !== suffix.length + 1) expect(matched).toBe(false);
        else expect(matched).toBe(hostLabels.slice(1).join(".") === suffix.join("."));
      }),
    );
  });

  it("normalizeHost is idempotent", () => {
    fc.assert(
      fc.property(fc.oneof(hostName, fc.string()), (host) => {
        const once = normalizeHost(host);
        if (once !== null) expect(normalizeHost(once)).toBe(once);
      }),
    );
  });
});

describe("traffic decision properties", () => {
  const service = fc.record({
    id: fc.uuid(),
    hostPattern: patternList,
    isEnabled: fc.boolean(),
    bundled: fc.boolean(),
    credentials: fc.constant(["secret"]),
  });
  const input = fc.record({
    policy: fc.constantFrom("any-host" as const, "bundle-hosts" as const),
    allowedHosts: fc.option(patternList, { nil: null }),
    services: fc.array(service, { maxLength: 5 }),
    host: hostName,
    port,
    tls: fc.boolean(),
  });

  const grants = (services: readonly TrafficService[], host: string, p: number) =>
    services.some(
      (s) =>
        s.isEnabled &&
        s.bundled &&
        compileHostPatterns(s.hostPattern).some((pattern) => matchHostPattern(pattern, host, p, { portlessPort: 443 })),
    );
  const allows = (allowedHosts: string | null, host: string, p: number) =>
    compileHostPatterns(allowedHosts).some((pattern) => matchHostPattern(pattern, host, p));

  it("under bundle-hosts, a host no granted pattern and no allowed host matches is denied, and only such a host", () => {
    fc.assert(
      fc.property(input, (request) => {
        const decision = decideTraffic({ ...request, policy: "bundle-hosts" });
        const reachable = grants(request.services, request.host, request.port) || allows(request.allowedHosts, request.host, request.port);
        expect(decision.action === "deny").toBe(!reachable);
        if (decision.action === "deny") expect(decision.message).toContain(request.host);
      }),
    );
  });

  it("under any-host, nothing valid is denied", () => {
    fc.assert(
      fc.property(input, (request) => {
        expect(decideTraffic({ ...request, policy: "any-host" }).action).not.toBe("deny");
      }),
    );
  });

  it("brokers only over TLS, only granted enabled services, and never an allowed host", () => {
    fc.assert(
      fc.property(input, (request) => {
        const decision = decideTraffic(request);
        if (decision.action !== "broker") return;
        expect(request.tls).toBe(true);
        expect(decision.service.isEnabled && decision.service.bundled).toBe(true);
        expect(allows(request.allowedHosts, request.host, request.port)).toBe(false);
        expect(compileHostPatterns(decision.service.hostPattern).some((p) => matchHostPattern(p, request.host, request.port))).toBe(true);
      }),
    );
  });
});
