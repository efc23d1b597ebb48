import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type IssuedCertificate,
  type KeyAlgorithm,
  createIntermediateCa,
  createRootCa,
  issueCertificate,
  prepareIssuer,
  serialContent,
  signCrl,
} from "../../src/entries/x509.js";
import { type Workspace, workspace } from "../../src/testing/openssl.js";

/** CRLs checked by the real openssl: parsed, signed by their CA, and used by `verify -crl_check`. */

const now = new Date("2026-03-01T12:00:00.250Z");
const DAY = 86_400_000;
const AT_TIME = String(Math.floor(now.getTime() / 1000) + 60);
const pair = (ca: IssuedCertificate) => ({ certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem! });

describe("serialContent", () => {
  it.each([
    ["01", "01"],
    ["7f", "7f"],
    ["80", "0080"],
    ["00ff", "00ff"],
    ["0001", "01"],
    ["000080", "0080"],
    ["abc", "0abc"],
    ["00", "00"],
  ])("%s is encoded as %s", (hex, expected) => {
    expect(serialContent(hex).toString("hex")).toBe(expected);
  });
});

describe.each<KeyAlgorithm>(["EC_prime256v1", "RSA_2048"])("signCrl with a %s CA", (keyAlgorithm) => {
  let ws: Workspace;
  let root: IssuedCertificate;
  let leaf: IssuedCertificate;
  let other: IssuedCertificate;

  beforeAll(async () => {
    ws = await workspace();
    root = await createRootCa({ commonName: "CRL Root", keyAlgorithm, ttlMs: 365 * DAY, now });
    leaf = await issueCertificate({ issuer: pair(root), subject: { commonName: "revoked.example.test" }, keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
    other = await issueCertificate({ issuer: pair(root), subject: { commonName: "fine.example.test" }, keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
    await ws.write("root.pem", root.certificatePem);
    await ws.write("leaf.pem", leaf.certificatePem);
    await ws.write("other.pem", other.certificatePem);
  });
  afterAll(() => ws?.dispose());

  const crl = (revoked: { serialNumber: string; reason: "UNSPECIFIED" | "KEY_COMPROMISE" | "SUPERSEDED" }[], number = 1) =>
    signCrl({
      issuer: prepareIssuer(pair(root)),
      number,
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + 7 * DAY),
      revoked: revoked.map((r) => ({ ...r, revokedAt: now })),
    });

  it("is a v2 CRL openssl reads and verifies against its CA, with number and reasons", async () => {
    await ws.write("crl.pem", await crl([{ serialNumber: leaf.serialNumber, reason: "KEY_COMPROMISE" }, { serialNumber: "00ab", reason: "UNSPECIFIED" }], 7));
    const text = await ws.openssl("crl", "-in", "crl.pem", "-noout", "-text");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Version 2/);
    expect(text.stdout).toMatch(/X509v3 CRL Number:\s*\n\s*7/);
    expect(text.stdout).toMatch(/X509v3 Authority Key Identifier/);
    expect(text.stdout.toUpperCase()).toContain(leaf.serialNumber.toUpperCase());
    expect(text.stdout).toMatch(/Key Compromise/);
    expect(text.stdout.match(/CRL Reason Code/g)).toHaveLength(1);
    const verified = await ws.openssl("crl", "-in", "crl.pem", "-noout", "-CAfile", "root.pem");
    expect(`${verified.stdout}${verified.stderr}`).toMatch(/verify OK/);
  });

  it("makes openssl verify -crl_check refuse the revoked certificate only", async () => {
    await ws.write("crl.pem", await crl([{ serialNumber: leaf.serialNumber, reason: "SUPERSEDED" }]));
    const check = (cert: string) => ws.openssl("verify", "-attime", AT_TIME, "-crl_check", "-CAfile", "root.pem", "-CRLfile", "crl.pem", cert);
    const revoked = await check("leaf.pem");
    expect(revoked.code).not.toBe(0);
    expect(`${revoked.stdout}${revoked.stderr}`).toMatch(/certificate revoked/);
    const fine = await check("other.pem");
    expect(fine.code, fine.stderr).toBe(0);
  });

  it("lists nothing when nothing is revoked, and still verifies", async () => {
    await ws.write("empty.pem", await crl([]));
    const text = await ws.openssl("crl", "-in", "empty.pem", "-noout", "-text", "-CAfile", "root.pem");
    expect(`${text.stdout}${text.stderr}`).toMatch(/No Revoked Certificates/);
    expect(`${text.stdout}${text.stderr}`).toMatch(/verify OK/);
    const ok = await ws.openssl("verify", "-attime", AT_TIME, "-crl_check", "-CAfile", "root.pem", "-CRLfile", "empty.pem", "leaf.pem");
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("is signed by an intermediate CA for what it issued", async () => {
    const intermediate = await createIntermediateCa({ commonName: "CRL Intermediate", keyAlgorithm, ttlMs: 200 * DAY, now, parent: pair(root) });
    const child = await issueCertificate({ issuer: pair(intermediate), subject: { commonName: "child.example.test" }, keyAlgorithm: "EC_prime256v1", ttlMs: 10 * DAY, now });
    const list = await signCrl({
      issuer: prepareIssuer(pair(intermediate)),
      number: 1,
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + DAY),
      revoked: [{ serialNumber: child.serialNumber, revokedAt: now, reason: "KEY_COMPROMISE" }],
    });
    await ws.write("chain.pem", intermediate.certificatePem + root.certificatePem);
    await ws.write("int-crl.pem", list);
    await ws.write("child.pem", child.certificatePem);
    const res = await ws.openssl("verify", "-attime", AT_TIME, "-crl_check", "-CAfile", "chain.pem", "-CRLfile", "int-crl.pem", "child.pem");
    expect(`${res.stdout}${res.stderr}`).toMatch(/certificate revoked/);
  });
});
