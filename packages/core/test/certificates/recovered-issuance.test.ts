import { describe, expect, it } from "vitest";
import { issuanceFromCertificate } from "../../src/x509/certificate-reader.js";
import { issueCertificate } from "../../src/x509/issue.js";
import type { ResolvedIssuance } from "../../src/x509/resolved-issuance.js";

/**
 * Renewal of certificates stored before their issuance was recorded reads the plan back from the
 * certificate. Table-driven round trips: every plan, issued, reads back as itself.
 */
const DAY = 86_400_000;
const now = new Date("2026-11-28T12:00:00Z");

const plans: [string, ResolvedIssuance][] = [
  [
    "an EC server certificate with names of every type",
    {
      subject: { commonName: "api.example.test", organization: "Example", organizationalUnit: "Ops", country: "DE", state: "Berlin", locality: "Berlin" },
      keyAlgorithm: "EC_prime256v1",
      signatureAlgorithm: "ECDSA-SHA256",
      keyUsages: ["digital_signature", "key_agreement"],
      extendedKeyUsages: ["server_auth", "client_auth"],
      subjectAltNames: [
        { type: "dns_name", value: "api.example.test" },
        { type: "ip_address", value: "10.1.2.3" },
        { type: "email", value: "ops@example.test" },
        { type: "uri", value: "spiffe://example.test/api" },
      ],
      domainComponents: [],
      customExtensions: [],
      ttlMs: 30 * DAY,
    },
  ],
  [
    "an RSA CA with a path length, domain components and a custom extension",
    {
      subject: { commonName: "Example Issuing CA" },
      keyAlgorithm: "RSA_2048",
      signatureAlgorithm: "RSA-SHA384",
      keyUsages: ["key_cert_sign", "crl_sign"],
      extendedKeyUsages: [],
      basicConstraints: { isCA: true, pathLength: 0 },
      subjectAltNames: [],
      domainComponents: ["example", "test"],
      customExtensions: [{ oid: "1.3.6.1.4.1.55555.1", critical: false, value: "DER:0c0568656c6c6f" }],
      ttlMs: 365 * DAY,
    },
  ],
  [
    "a bare certificate: no usages, no names, a P-384 key",
    {
      subject: { commonName: "bare" },
      keyAlgorithm: "EC_secp384r1",
      signatureAlgorithm: "ECDSA-SHA384",
      keyUsages: [],
      extendedKeyUsages: [],
      subjectAltNames: [],
      domainComponents: [],
      customExtensions: [],
      ttlMs: DAY,
    },
  ],
];

describe("issuanceFromCertificate", () => {
  it.each(plans)("reads back %s as it was issued", async (_name, plan) => {
    const issued = await issueCertificate({ ...plan, issuer: "self-signed", now });
    expect(issuanceFromCertificate(issued.certificatePem)).toEqual(plan);
  });

  it("throws on what is not a certificate", () => {
    expect(() => issuanceFromCertificate("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")).toThrow();
  });
});
