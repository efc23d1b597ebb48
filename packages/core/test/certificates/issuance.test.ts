import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CustomExtension,
  type IssuedCertificate,
  type KeyAlgorithm,
  type SignatureAlgorithm,
  type SubjectAltName,
  createIntermediateCa,
  createRootCa,
  issueCertificate,
  parseCertificate,
  prepareIssuer,
} from "../../src/entries/x509.js";
import { BadRequestError } from "../../src/kernel/errors.js";
import { type Workspace, workspace } from "../../src/testing/openssl.js";

const now = new Date("2026-03-01T12:00:00.250Z");
const DAY = 86_400_000;
/** openssl checks validity at this moment rather than the machine's clock. */
const AT_TIME = String(Math.floor(now.getTime() / 1000) + 60);
const pair = (ca: IssuedCertificate) => ({ certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem! });

const sans: SubjectAltName[] = [
  { type: "dns_name", value: "app.example.com" },
  { type: "dns_name", value: "*.app.example.com" },
  { type: "ip_address", value: "192.0.2.10" },
  { type: "ip_address", value: "2001:db8::10" },
  { type: "email", value: "ops@example.com" },
  { type: "uri", value: "spiffe://example.com/app" },
];
const customExtensions: CustomExtension[] = [
  { oid: "1.3.6.1.4.1.55555.1", label: "team", critical: false, value: "payments" },
  { oid: "1.3.6.1.4.1.55555.2", label: "raw", critical: false, value: "DER:020105" },
];

// openssl's names for what it prints.
const OPENSSL_SIGNATURE: Record<SignatureAlgorithm, string> = {
  "RSA-SHA256": "sha256WithRSAEncryption",
  "RSA-SHA384": "sha384WithRSAEncryption",
  "RSA-SHA512": "sha512WithRSAEncryption",
  "ECDSA-SHA256": "ecdsa-with-SHA256",
  "ECDSA-SHA384": "ecdsa-with-SHA384",
  "ECDSA-SHA512": "ecdsa-with-SHA512",
};
const OPENSSL_KEY: Record<KeyAlgorithm, string> = {
  RSA_2048: "Public-Key: (2048 bit)",
  RSA_3072: "Public-Key: (3072 bit)",
  RSA_4096: "Public-Key: (4096 bit)",
  EC_prime256v1: "NIST CURVE: P-256",
  EC_secp384r1: "NIST CURVE: P-384",
};

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.dispose());

/** Writes root, intermediate and leaf, then asks openssl to verify the chain; returns the leaf's text dump. */
async function verifyChain(name: string, root: IssuedCertificate, intermediate: IssuedCertificate, leaf: IssuedCertificate) {
  const rootFile = await ws.write(`${name}-root.pem`, root.certificatePem);
  const intermediateFile = await ws.write(`${name}-intermediate.pem`, intermediate.certificatePem);
  const leafFile = await ws.write(`${name}-leaf.pem`, leaf.certificatePem);
  const verify = await ws.openssl("verify", "-attime", AT_TIME, "-CAfile", rootFile, "-untrusted", intermediateFile, leafFile);
  expect(verify.stderr).toBe("");
  expect(verify).toMatchObject({ code: 0, stdout: `${leafFile}: OK\n` });
  return (await ws.openssl("x509", "-in", leafFile, "-noout", "-text")).stdout;
}

/** The private key PEM is read by openssl and carries the certificate's public key. */
async function expectKeyMatches(name: string, issued: IssuedCertificate) {
  const keyFile = await ws.write(`${name}-key.pem`, issued.privateKeyPem!);
  const certFile = await ws.write(`${name}-cert.pem`, issued.certificatePem);
  const fromKey = await ws.openssl("pkey", "-in", keyFile, "-pubout");
  const fromCert = await ws.openssl("x509", "-in", certFile, "-noout", "-pubkey");
  expect(fromKey.code).toBe(0);
  expect(fromKey.stdout).toBe(fromCert.stdout);
  expect(createPublicKey(createPrivateKey(issued.privateKeyPem!)).export({ type: "spki", format: "der" })).toEqual(
    new X509Certificate(issued.certificatePem).publicKey.export({ type: "spki", format: "der" }),
  );
}

describe("issuance through a root → intermediate → leaf chain, checked by openssl", () => {
  const cases: { keyAlgorithm: KeyAlgorithm; signatureAlgorithm: SignatureAlgorithm }[] = [
    { keyAlgorithm: "RSA_2048", signatureAlgorithm: "RSA-SHA256" },
    { keyAlgorithm: "RSA_3072", signatureAlgorithm: "RSA-SHA384" },
    { keyAlgorithm: "RSA_4096", signatureAlgorithm: "RSA-SHA512" },
    { keyAlgorithm: "EC_prime256v1", signatureAlgorithm: "ECDSA-SHA256" },
    { keyAlgorithm: "EC_secp384r1", signatureAlgorithm: "ECDSA-SHA384" },
    { keyAlgorithm: "EC_prime256v1", signatureAlgorithm: "ECDSA-SHA512" },
  ];

  it.each(cases)("$keyAlgorithm keys signed with $signatureAlgorithm", async ({ keyAlgorithm, signatureAlgorithm }) => {
    const name = `${keyAlgorithm}-${signatureAlgorithm}`;
    const root = await createRootCa({ commonName: "Strongroom Test Root", organization: "Acme", keyAlgorithm, signatureAlgorithm, ttlMs: 3650 * DAY, now });
    const intermediate = await createIntermediateCa({ parent: pair(root), commonName: "Strongroom Test Issuing CA", keyAlgorithm, signatureAlgorithm, ttlMs: 365 * DAY, now });
    const leaf = await issueCertificate({
      issuer: pair(intermediate),
      subject: { commonName: "app.example.com", organization: "Acme", organizationalUnit: "Payments", country: "de", state: "Berlin", locality: "Berlin" },
      keyAlgorithm,
      signatureAlgorithm,
      keyUsages: keyAlgorithm.startsWith("RSA") ? ["digital_signature", "key_encipherment"] : ["digital_signature", "key_agreement"],
      extendedKeyUsages: ["server_auth", "client_auth"],
      basicConstraints: { isCA: false },
      subjectAltNames: sans,
      domainComponents: ["example", "com"],
      customExtensions,
      ttlMs: 90 * DAY,
      now,
    });

    const text = await verifyChain(name, root, intermediate, leaf);
    expect(text).toContain(`Signature Algorithm: ${OPENSSL_SIGNATURE[signatureAlgorithm]}`);
    expect(text).toContain(OPENSSL_KEY[keyAlgorithm]);
    expect(text).toContain("Subject: DC = com, DC = example, C = DE, ST = Berlin, L = Berlin, O = Acme, OU = Payments, CN = app.example.com");
    expect(text).toContain("Issuer: CN = Strongroom Test Issuing CA");
    expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:FALSE/);
    expect(text).toMatch(keyAlgorithm.startsWith("RSA") ? /Key Usage: critical\n\s+Digital Signature, Key Encipherment/ : /Key Usage: critical\n\s+Digital Signature, Key Agreement/);
    expect(text).toMatch(/Extended Key Usage: *\n\s+TLS Web Server Authentication, TLS Web Client Authentication/);
    expect(text).toContain(
      "DNS:app.example.com, DNS:*.app.example.com, IP Address:192.0.2.10, IP Address:2001:DB8:0:0:0:0:0:10, email:ops@example.com, URI:spiffe://example.com/app",
    );
    expect(text).toContain("X509v3 Subject Key Identifier");
    expect(text).toContain("X509v3 Authority Key Identifier");
    expect(text).toMatch(/1\.3\.6\.1\.4\.1\.55555\.1: *\n\s+\.\.payments/);
    expect(text).toContain("1.3.6.1.4.1.55555.2");
    expect(text).toContain("Not Before: Mar  1 12:00:00 2026 GMT");
    expect(text).toContain("Not After : May 30 12:00:00 2026 GMT");

    expect(leaf.serialNumber).toMatch(/^[0-7][0-9a-f]{31}$/);
    expect(leaf.notBefore).toEqual(new Date("2026-03-01T12:00:00Z"));
    expect(leaf.notAfter).toEqual(new Date(leaf.notBefore.getTime() + 90 * DAY));
    expect(leaf).toMatchObject({ keyAlgorithm, signatureAlgorithm });
    const fingerprint = await ws.openssl("x509", "-in", `${name}-leaf.pem`, "-noout", "-fingerprint", "-sha256");
    expect(fingerprint.stdout.trim()).toBe(`sha256 Fingerprint=${leaf.fingerprintSha256.slice("SHA256:".length)}`);
    await expectKeyMatches(name, leaf);

    const caText = (await ws.openssl("x509", "-in", `${name}-intermediate.pem`, "-noout", "-text")).stdout;
    expect(caText).toMatch(/Basic Constraints: critical\n\s+CA:TRUE/);
    expect(caText).toMatch(/Key Usage: critical\n\s+Digital Signature, Certificate Sign, CRL Sign/);
  });

  it("chains across key families: an RSA intermediate under an EC root signs an EC leaf", async () => {
    const root = await createRootCa({ commonName: "EC Root", keyAlgorithm: "EC_secp384r1", ttlMs: 3650 * DAY, now });
    const intermediate = await createIntermediateCa({ parent: pair(root), commonName: "RSA Issuing", keyAlgorithm: "RSA_2048", ttlMs: 365 * DAY, now, pathLength: 0 });
    const leaf = await issueCertificate({ issuer: pair(intermediate), subject: { commonName: "mixed.example.com" }, keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
    const text = await verifyChain("mixed", root, intermediate, leaf);
    expect(text).toContain("Signature Algorithm: sha256WithRSAEncryption");
    expect(text).toContain("NIST CURVE: P-256");
    expect(leaf.signatureAlgorithm).toBe("RSA-SHA256");
    const intermediateText = (await ws.openssl("x509", "-in", "mixed-intermediate.pem", "-noout", "-text")).stdout;
    expect(intermediateText).toContain("Signature Algorithm: ecdsa-with-SHA384");
    expect(intermediateText).toMatch(/CA:TRUE, pathlen:0/);
  });
});

describe("issuance from a CSR", () => {
  let root: IssuedCertificate;
  let intermediate: IssuedCertificate;
  beforeAll(async () => {
    root = await createRootCa({ commonName: "CSR Root", keyAlgorithm: "EC_prime256v1", ttlMs: 3650 * DAY, now });
    intermediate = await createIntermediateCa({ parent: pair(root), commonName: "CSR Issuing", keyAlgorithm: "EC_prime256v1", ttlMs: 365 * DAY, now });
  });

  async function opensslCsr(name: string, keyArgs: string[], subject: string) {
    const made = await ws.openssl("req", "-new", "-nodes", ...keyArgs, "-subj", subject, "-keyout", `${name}.key`, "-out", `${name}.csr`);
    expect(made.code).toBe(0);
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    return readFile(join(ws.dir, `${name}.csr`), "utf8");
  }

  it.each([
    { name: "ec-csr", keyArgs: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"], keyAlgorithm: "EC_prime256v1" },
    { name: "rsa-csr", keyArgs: ["-newkey", "rsa:2048"], keyAlgorithm: "RSA_2048" },
  ])("certifies the key of an openssl $name, keeping its subject when no attributes are sent", async ({ name, keyArgs, keyAlgorithm }) => {
    const csrPem = await opensslCsr(name, keyArgs, "/CN=csr.example.com/O=CSR Org");
    const leaf = await issueCertificate({ issuer: pair(intermediate), csrPem, subjectAltNames: [{ type: "dns_name", value: "csr.example.com" }], ttlMs: 30 * DAY, now });
    expect(leaf.privateKeyPem).toBeUndefined();
    expect(leaf.keyAlgorithm).toBe(keyAlgorithm);
    const text = await verifyChain(name, root, intermediate, leaf);
    expect(text).toContain("Subject: CN = csr.example.com, O = CSR Org");
    const keyPub = await ws.openssl("pkey", "-in", `${name}.key`, "-pubout");
    const certPub = await ws.openssl("x509", "-in", `${name}-leaf.pem`, "-noout", "-pubkey");
    expect(certPub.stdout).toBe(keyPub.stdout);
  });

  it("uses the request's subject attributes over the CSR's", async () => {
    const csrPem = await opensslCsr("override", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384"], "/CN=from-csr");
    const leaf = await issueCertificate({ issuer: pair(intermediate), csrPem, subject: { commonName: "from-request" }, ttlMs: DAY, now });
    expect(parseCertificate(leaf.certificatePem).subject).toBe("CN=from-request");
  });

  it("refuses a CSR whose signature does not verify", async () => {
    const csrPem = await opensslCsr("tampered", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"], "/CN=aaaaaaaa");
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ""), "base64");
    const at = der.indexOf(Buffer.from("aaaaaaaa"));
    der[at] = "b".charCodeAt(0);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(issueCertificate({ issuer: pair(intermediate), csrPem: tampered, ttlMs: DAY, now })).rejects.toThrow(/signature does not verify/);
  });

  it("refuses CSR keys outside the supported algorithms, and garbage", async () => {
    const csrPem = await opensslCsr("ed25519", ["-newkey", "ed25519"], "/CN=ed");
    await expect(issueCertificate({ issuer: pair(intermediate), csrPem, ttlMs: DAY, now })).rejects.toBeInstanceOf(BadRequestError);
    await expect(issueCertificate({ issuer: pair(intermediate), csrPem: "not a csr", ttlMs: DAY, now })).rejects.toThrow(/csr is not a PEM/);
    const junk = "-----BEGIN CERTIFICATE REQUEST-----\nMAMCAQA=\n-----END CERTIFICATE REQUEST-----\n";
    await expect(issueCertificate({ issuer: pair(intermediate), csrPem: junk, ttlMs: DAY, now })).rejects.toThrow(/CSR cannot be read/);
  });

  it("refuses a self-signed certificate for a CSR", async () => {
    const csrPem = await opensslCsr("self-csr", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"], "/CN=x");
    await expect(issueCertificate({ issuer: "self-signed", csrPem, ttlMs: DAY, now })).rejects.toThrow(/self-signed/);
  });
});

describe("self-signed certificates", () => {
  it.each<KeyAlgorithm>(["EC_prime256v1", "RSA_2048"])("a %s self-signed leaf verifies against itself", async (keyAlgorithm) => {
    const cert = await issueCertificate({
      issuer: "self-signed",
      subject: { commonName: "self.example.com" },
      keyAlgorithm,
      extendedKeyUsages: ["server_auth"],
      subjectAltNames: [{ type: "dns_name", value: "self.example.com" }],
      ttlMs: DAY,
      now,
    });
    const file = await ws.write(`self-${keyAlgorithm}.pem`, cert.certificatePem);
    const verify = await ws.openssl("verify", "-attime", AT_TIME, "-CAfile", file, file);
    expect(verify.code).toBe(0);
    const x509 = new X509Certificate(cert.certificatePem);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.subject).toBe(x509.issuer);
    const text = (await ws.openssl("x509", "-in", file, "-noout", "-text")).stdout;
    expect(text).not.toContain("Authority Key Identifier");
    await expectKeyMatches(`self-${keyAlgorithm}`, cert);
  });

  it("a certificate with only SANs has an empty subject and a critical SAN extension", async () => {
    const cert = await issueCertificate({ issuer: "self-signed", keyAlgorithm: "EC_prime256v1", subjectAltNames: [{ type: "uri", value: "spiffe://x/y" }], ttlMs: DAY, now });
    const file = await ws.write("sans-only.pem", cert.certificatePem);
    const text = (await ws.openssl("x509", "-in", file, "-noout", "-text")).stdout;
    expect(text).toMatch(/Subject Alternative Name: critical\n\s+URI:spiffe:\/\/x\/y/);
    expect(parseCertificate(cert.certificatePem)).toMatchObject({ commonName: null, subject: "" });
  });
});

describe("issuer checks", () => {
  let root: IssuedCertificate;
  beforeAll(async () => {
    root = await createRootCa({ commonName: "Checks Root", keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
  });

  it("a prepared issuer and a PEM pair issue the same way", async () => {
    const prepared = prepareIssuer(pair(root));
    const leaf = await issueCertificate({ issuer: prepared, subject: { commonName: "p" }, keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
    expect(new X509Certificate(leaf.certificatePem).checkIssued(new X509Certificate(root.certificatePem))).toBe(true);
  });

  const failures: [string, () => Promise<unknown>, RegExp][] = [
    ["a leaf outliving its CA", () => issueCertificate({ issuer: pair(root), subject: { commonName: "x" }, keyAlgorithm: "EC_prime256v1", ttlMs: 31 * DAY, now }), /outlive its issuing CA/],
    ["issuing after the CA expired", () => issueCertificate({ issuer: pair(root), subject: { commonName: "x" }, keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now: new Date(now.getTime() + 40 * DAY) }), /expired/],
    ["an RSA signature from an EC CA", () => issueCertificate({ issuer: pair(root), subject: { commonName: "x" }, keyAlgorithm: "EC_prime256v1", signatureAlgorithm: "RSA-SHA256", ttlMs: DAY, now }), /RSA-SHA256 cannot be used with a EC_prime256v1/],
    ["no subject and no SAN", () => issueCertificate({ issuer: pair(root), keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now }), /needs a subject/],
    ["key_cert_sign on a leaf", () => issueCertificate({ issuer: pair(root), subject: { commonName: "x" }, keyAlgorithm: "EC_prime256v1", keyUsages: ["key_cert_sign"], ttlMs: DAY, now }), /requires basicConstraints.isCA/],
  ];
  it.each(failures)("refuses %s with a 400", async (_, run, message) => {
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses a non-CA certificate, a mismatched key and a CA whose pathLength is spent", async () => {
    const leaf = await issueCertificate({ issuer: pair(root), subject: { commonName: "leaf" }, keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
    expect(() => prepareIssuer(pair(leaf))).toThrow(/not a CA certificate/);
    const other = await createRootCa({ commonName: "Other", keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
    expect(() => prepareIssuer({ certificatePem: root.certificatePem, privateKeyPem: other.privateKeyPem! })).toThrow(/does not match/);
    expect(() => prepareIssuer({ certificatePem: "junk", privateKeyPem: other.privateKeyPem! })).toThrow(BadRequestError);
    const endOfPath = await createIntermediateCa({ parent: pair(root), commonName: "Last", keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now, pathLength: 0 });
    await expect(createIntermediateCa({ parent: pair(endOfPath), commonName: "Too deep", keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now })).rejects.toThrow(/pathLength is 0/);
  });
});

describe("parseCertificate", () => {
  it("summarises a certificate and agrees with node:crypto", async () => {
    const root = await createRootCa({ commonName: "Parse Root", organization: "Acme, Inc.", keyAlgorithm: "EC_prime256v1", ttlMs: 10 * DAY, now });
    const leaf = await issueCertificate({ issuer: pair(root), subject: { commonName: "parse.example.com" }, subjectAltNames: sans, keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
    const parsed = parseCertificate(leaf.certificatePem);
    const x509 = new X509Certificate(leaf.certificatePem);
    expect(parsed).toEqual({
      commonName: "parse.example.com",
      subject: "CN=parse.example.com",
      issuer: "CN=Parse Root,O=Acme\\, Inc.",
      serialNumber: leaf.serialNumber,
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
      isCA: false,
      fingerprintSha256: `SHA256:${x509.fingerprint256}`,
      subjectAltNames: sans,
    });
    expect(parsed.serialNumber.toUpperCase()).toBe(x509.serialNumber);
    expect(parseCertificate(root.certificatePem).isCA).toBe(true);
    expect(parseCertificate(x509.raw)).toEqual(parsed);
  });

  it("what issuance says about its certificate is what parseCertificate reads from it", async () => {
    const root = await createRootCa({ commonName: "Summary Root", organization: "Acme, Inc.", keyAlgorithm: "EC_prime256v1", ttlMs: 10 * DAY, now });
    const intermediate = await createIntermediateCa({ parent: pair(root), commonName: "Summary Issuing", keyAlgorithm: "EC_prime256v1", ttlMs: 5 * DAY, now });
    const issued = [
      root,
      intermediate,
      await issueCertificate({ issuer: prepareIssuer(pair(intermediate)), subject: { commonName: "a.example.com", country: "de" }, subjectAltNames: sans, ttlMs: DAY, now }),
      await issueCertificate({ issuer: pair(root), subjectAltNames: [{ type: "ip_address", value: "2001:0db8:0000::0001" }], ttlMs: DAY, now }),
      await issueCertificate({ issuer: "self-signed", subject: { commonName: "self" }, domainComponents: ["example", "com"], ttlMs: DAY, now }),
    ];
    for (const certificate of issued) {
      const { certificatePem: _pem, privateKeyPem: _key, keyAlgorithm: _k, signatureAlgorithm: _s, ...said } = certificate;
      expect(said).toEqual(parseCertificate(certificate.certificatePem));
    }
  });

  it("answers a 400 for something that is not a certificate", () => {
    expect(() => parseCertificate("-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n")).toThrow(BadRequestError);
    expect(() => parseCertificate("hello")).toThrow(BadRequestError);
  });
});
