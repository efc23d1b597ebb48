import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alertWindowEnd, parseTtl, resolveTtl } from "../../src/cert-manager/durations.js";
import { issuesAuthority, mergeProfileDefaults } from "../../src/cert-manager/profiles/merge.js";
import type { IssuanceAttributes, ProfileDefaults } from "../../src/cert-manager/schemas.js";
import {
  type KeyAlgorithm,
  type SignatureAlgorithm,
  KEY_ALGORITHMS,
  SIGNATURE_ALGORITHMS,
  SUBJECT_ATTRIBUTES,
  assertSignatureCompatible,
} from "../../src/entries/x509.js";
import { BadRequestError } from "../../src/kernel/errors.js";

const DAY = 86_400_000;

describe("resolveTtl", () => {
  const ok: [string | undefined, number | undefined, number][] = [
    ["90d", undefined, 90 * DAY],
    ["12h", 30, 12 * 3_600_000],
    ["30m", undefined, 30 * 60_000],
    ["45s", undefined, 45_000],
    ["2w", undefined, 14 * DAY],
    ["1y", undefined, 365 * DAY],
    [undefined, 30, 30 * DAY],
    ["", 7, 7 * DAY],
    ["36500d", undefined, 36_500 * DAY],
  ];
  it.each(ok)("ttl %s with ttlDays %s → %d ms", (ttl, ttlDays, ms) => {
    expect(resolveTtl(ttl, ttlDays)).toBe(ms);
  });

  const bad: [string | undefined, number | undefined, RegExp][] = [
    [undefined, undefined, /A ttl is required/],
    ["", undefined, /A ttl is required/],
    ["90", 30, /Invalid ttl/],
    ["d", undefined, /Invalid ttl/],
    ["1.5d", undefined, /Invalid ttl/],
    ["-1d", undefined, /Invalid ttl/],
    ["90 d", undefined, /Invalid ttl/],
    ["10x", undefined, /Invalid ttl/],
    ["0d", undefined, /greater than zero/],
    ["101y", undefined, /must not exceed/],
    [undefined, 0, /ttlDays must be an integer/],
    [undefined, 1.5, /ttlDays must be an integer/],
  ];
  it.each(bad)("ttl %s with ttlDays %s → 400", (ttl, ttlDays, message) => {
    expect(() => resolveTtl(ttl, ttlDays)).toThrow(BadRequestError);
    expect(() => resolveTtl(ttl, ttlDays)).toThrow(message);
  });

  it("a request ttl always beats ttlDays", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 36_500 }), fc.integer({ min: 1, max: 36_500 }), (days, ttlDays) => {
        expect(resolveTtl(`${days}d`, ttlDays)).toBe(parseTtl(`${days}d`));
      }),
    );
  });
});

describe("alertWindowEnd", () => {
  const now = new Date("2026-01-31T00:00:00Z");
  it.each([
    ["30d", "2026-03-02T00:00:00.000Z"],
    ["2w", "2026-02-14T00:00:00.000Z"],
    ["1m", "2026-03-03T00:00:00.000Z"],
    ["1y", "2027-01-31T00:00:00.000Z"],
  ])("%s from 31 January → %s", (alertBefore, end) => {
    expect(alertWindowEnd(alertBefore, now).toISOString()).toBe(end);
  });
  it("refuses other notations", () => {
    expect(() => alertWindowEnd("1h", now)).toThrow(BadRequestError);
  });
});

describe("mergeProfileDefaults", () => {
  const defaults: ProfileDefaults = {
    ttlDays: 30,
    commonName: "default.example.com",
    organization: "Acme",
    country: "DE",
    keyAlgorithm: "EC_prime256v1",
    keyUsages: ["digital_signature", "key_agreement"],
    extendedKeyUsages: ["server_auth"],
    basicConstraints: { isCA: false },
    subjectAltNames: [{ type: "dns_name", value: "default.example.com" }],
    domainComponents: ["example", "com"],
    customExtensions: [
      { oid: "1.2.3.4", label: "policy", critical: false, value: "from-profile" },
      { oid: "1.2.3.5", label: "team", critical: false, value: "platform" },
    ],
  };

  const cases: { name: string; request: IssuanceAttributes | undefined; expected: Record<string, unknown> }[] = [
    {
      name: "no request: everything from the defaults",
      request: undefined,
      expected: {
        subject: { commonName: "default.example.com", organization: "Acme", country: "DE" },
        keyAlgorithm: "EC_prime256v1",
        signatureAlgorithm: "ECDSA-SHA256",
        keyUsages: ["digital_signature", "key_agreement"],
        extendedKeyUsages: ["server_auth"],
        basicConstraints: { isCA: false },
        subjectAltNames: [{ type: "dns_name", value: "default.example.com" }],
        domainComponents: ["example", "com"],
        ttlMs: 30 * DAY,
      },
    },
    {
      name: "scalars: the request wins, absent and empty ones fall back",
      request: { commonName: "req.example.com", organization: "", locality: "Berlin", ttl: "12h" },
      expected: { subject: { commonName: "req.example.com", organization: "Acme", country: "DE", locality: "Berlin" }, ttlMs: 12 * 3_600_000 },
    },
    {
      name: "keyUsages and extendedKeyUsages are replaced whole, even by an empty list",
      request: { keyUsages: ["key_encipherment"], extendedKeyUsages: [] },
      expected: { keyUsages: ["key_encipherment"], extendedKeyUsages: [] },
    },
    {
      name: "basicConstraints is replaced whole",
      request: { basicConstraints: { isCA: true, pathLength: 1 } },
      expected: { basicConstraints: { isCA: true, pathLength: 1 } },
    },
    {
      name: "SANs and DCs are replaced; a SAN without a type gets one from its value",
      request: { subjectAltNames: [{ value: "10.0.0.1" }, { value: "a@example.com" }, { value: "https://x" }, { value: "b.example.com" }], domainComponents: ["corp"] },
      expected: {
        subjectAltNames: [
          { type: "ip_address", value: "10.0.0.1" },
          { type: "email", value: "a@example.com" },
          { type: "uri", value: "https://x" },
          { type: "dns_name", value: "b.example.com" },
        ],
        domainComponents: ["corp"],
      },
    },
    {
      name: "custom extensions merge by OID, the request's version winning",
      request: { customExtensions: [{ oid: "1.2.3.4", label: "policy", critical: true, value: "from-request" }, { oid: "1.2.3.9", label: "new", critical: false, value: "x" }] },
      expected: {
        customExtensions: [
          { oid: "1.2.3.5", label: "team", critical: false, value: "platform" },
          { oid: "1.2.3.4", label: "policy", critical: true, value: "from-request" },
          { oid: "1.2.3.9", label: "new", critical: false, value: "x" },
        ],
      },
    },
    {
      name: "a new key algorithm brings its own default signature",
      request: { keyAlgorithm: "EC_secp384r1" },
      expected: { keyAlgorithm: "EC_secp384r1", signatureAlgorithm: "ECDSA-SHA384" },
    },
  ];
  it.each(cases)("$name", ({ request, expected }) => {
    expect(mergeProfileDefaults(defaults, request)).toMatchObject(expected);
  });

  it("with no defaults at all: RSA_2048, RSA-SHA256, empty lists, no basicConstraints", () => {
    expect(mergeProfileDefaults(undefined, { ttl: "1d" })).toEqual({
      subject: {},
      keyAlgorithm: "RSA_2048",
      signatureAlgorithm: "RSA-SHA256",
      keyUsages: [],
      extendedKeyUsages: [],
      subjectAltNames: [],
      domainComponents: [],
      customExtensions: [],
      ttlMs: DAY,
    });
  });

  it("the signature algorithm is checked against the issuing CA's key when there is one", () => {
    expect(mergeProfileDefaults(defaults, {}, { signerKeyAlgorithm: "RSA_4096" }).signatureAlgorithm).toBe("RSA-SHA256");
    expect(() => mergeProfileDefaults(defaults, { signatureAlgorithm: "ECDSA-SHA256" }, { signerKeyAlgorithm: "RSA_2048" })).toThrow(
      /ECDSA-SHA256 cannot be used with a RSA_2048 signing key/,
    );
  });

  const incompatible: [Partial<IssuanceAttributes>, Partial<ProfileDefaults>][] = [
    [{ keyAlgorithm: "RSA_2048", signatureAlgorithm: "ECDSA-SHA256" }, {}],
    [{ keyAlgorithm: "EC_prime256v1", signatureAlgorithm: "RSA-SHA512" }, {}],
    // The request changes the key family but inherits the profile's RSA signature: a 400, not a silent swap.
    [{ keyAlgorithm: "EC_secp384r1" }, { keyAlgorithm: "RSA_2048", signatureAlgorithm: "RSA-SHA384" }],
  ];
  it.each(incompatible)("refuses an incompatible pair: request %o, defaults %o", (request, profile) => {
    expect(() => mergeProfileDefaults({ ttlDays: 1, ...profile }, request)).toThrow(BadRequestError);
  });

  it("a missing TTL is a 400", () => {
    expect(() => mergeProfileDefaults({ commonName: "x" }, {})).toThrow(/A ttl is required/);
  });

  it("property: every subject field is the request's when set, else the default's", () => {
    const text = fc.option(fc.constantFrom("", "a", "b"), { nil: undefined });
    const subject = fc.record(Object.fromEntries(SUBJECT_ATTRIBUTES.map((f) => [f, text])) as Record<(typeof SUBJECT_ATTRIBUTES)[number], typeof text>);
    fc.assert(
      fc.property(subject, subject, (d, r) => {
        const merged = mergeProfileDefaults({ ...d, ttlDays: 1 }, r).subject;
        for (const field of SUBJECT_ATTRIBUTES) {
          const expected = r[field] || d[field] || undefined;
          expect(merged[field]).toBe(expected);
        }
      }),
    );
  });

  it("property: the merged signature algorithm always suits the signing key", () => {
    fc.assert(
      fc.property(fc.constantFrom(...KEY_ALGORITHMS), fc.option(fc.constantFrom(...KEY_ALGORITHMS), { nil: undefined }), (keyAlgorithm, signer) => {
        const merged = mergeProfileDefaults({ ttlDays: 1 }, { keyAlgorithm }, signer ? { signerKeyAlgorithm: signer } : {});
        expect(() => assertSignatureCompatible(merged.signatureAlgorithm, signer ?? keyAlgorithm)).not.toThrow();
      }),
    );
  });
});

describe("assertSignatureCompatible", () => {
  const table = KEY_ALGORITHMS.flatMap((key) => SIGNATURE_ALGORITHMS.map((signature) => [key, signature] as [KeyAlgorithm, SignatureAlgorithm]));
  it.each(table)("%s key with %s", (key, signature) => {
    const compatible = key.startsWith("RSA") === signature.startsWith("RSA-");
    if (compatible) expect(() => assertSignatureCompatible(signature, key)).not.toThrow();
    else expect(() => assertSignatureCompatible(signature, key)).toThrow(BadRequestError);
  });
});

describe("issuesAuthority", () => {
  const ca = { isCA: true };
  const leaf = { isCA: false };
  it.each<[string, ProfileDefaults | undefined, IssuanceAttributes | undefined, boolean]>([
    ["nothing asked", undefined, undefined, false],
    ["the request asks", undefined, { basicConstraints: ca }, true],
    ["the request asks with a path length", undefined, { basicConstraints: { isCA: true, pathLength: 0 } }, true],
    ["the profile's defaults ask", { basicConstraints: ca }, undefined, true],
    ["the request overrides the profile's CA default", { basicConstraints: ca }, { basicConstraints: leaf }, false],
    ["the request asks over a leaf profile", { basicConstraints: leaf }, { basicConstraints: ca }, true],
    ["other fields leave the profile's CA default", { basicConstraints: ca }, { commonName: "x" }, true],
  ])("%s", (_name, defaults, request, authority) => {
    expect(issuesAuthority(mergeProfileDefaults({ ttlDays: 1, ...defaults }, request))).toBe(authority);
  });
});
