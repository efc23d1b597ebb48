import { describe, expect } from "vitest";
import { workspace } from "@strongroom/core/testing";
import { certSuite, createCa, createProfile, expectBound, q, type CertSuite } from "./cert-fixtures.js";
import { backends, createProject, expectError } from "../../src/testing/harness.js";

const CAS = "/api/v1/cert-manager/ca/internal";
const PROFILES = "/api/v1/cert-manager/certificate-profiles";
const CERTIFICATES = "/api/v1/cert-manager/certificates";

const CA_KEYS = [
  "id", "projectId", "name", "type", "status", "commonName", "keyAlgorithm", "certificate", "certificateChain", "serialNumber",
  "notBefore", "notAfter", "parentCaId", "createdAt", "updatedAt",
].sort();
const PROFILE_KEYS = [
  "id", "certificatePolicyId", "caId", "estConfigId", "apiConfigId", "acmeConfigId", "scepConfigId", "slug", "description",
  "enrollmentType", "issuerType", "createdAt", "updatedAt", "externalConfigs", "defaults",
].sort();

/** Verifies `leaf` against `root` through `chain` with the real openssl, and that `privateKey` (if any) is the certificate's. */
async function opensslVerifies(leaf: string, chain: string, root: string, privateKey?: string): Promise<string> {
  const ws = await workspace();
  try {
    await ws.write("root.pem", root);
    await ws.write("chain.pem", chain);
    await ws.write("leaf.pem", leaf);
    const verified = await ws.openssl("verify", "-CAfile", "root.pem", "-untrusted", "chain.pem", "leaf.pem");
    expect(verified.stdout.trim(), verified.stderr).toBe("leaf.pem: OK");
    if (privateKey) {
      await ws.write("key.pem", privateKey);
      const fromCert = await ws.openssl("x509", "-in", "leaf.pem", "-noout", "-pubkey");
      const fromKey = await ws.openssl("pkey", "-in", "key.pem", "-pubout");
      expect(fromKey.stdout).toBe(fromCert.stdout);
    }
    return (await ws.openssl("x509", "-in", "leaf.pem", "-noout", "-subject", "-ext", "subjectAltName")).stdout;
  } finally {
    await ws.dispose();
  }
}

describe.each(backends)("certificate authorities, profiles and issuance on %s", (backend) => {
  const { maybe } = certSuite(backend);

  maybe("creates root and intermediate CAs and never returns a private key", async (s) => {
    const root = await createCa(s, { name: "acme-root", commonName: "Acme Root CA" });
    expect(Object.keys(root).sort()).toEqual(CA_KEYS);
    expect(root).toMatchObject({ type: "root", status: "active", keyAlgorithm: "EC_prime256v1", parentCaId: null, certificateChain: "", projectId: s.projectId });
    const intermediate = await createCa(s, {
      name: "acme-issuing",
      type: "intermediate",
      parentCaId: root.id,
      commonName: "Acme Issuing CA",
      keyAlgorithm: "EC_secp384r1",
      ttlDays: 180,
    });
    expect(intermediate).toMatchObject({ type: "intermediate", parentCaId: root.id, certificateChain: root.certificate });
    await opensslVerifies(intermediate.certificate, intermediate.certificateChain, root.certificate);

    const listed = await s.ok("GET", `${CAS}${q({ projectId: s.projectId })}`);
    expect(listed.cas.map((ca: { name: string }) => ca.name)).toEqual(expect.arrayContaining(["acme-root", "acme-issuing"]));
    const got = await s.ok("GET", `${CAS}/${intermediate.id}`);
    expect(got.ca).toEqual(intermediate);
    expect(JSON.stringify([listed, got])).not.toMatch(/PRIVATE KEY/);

    const create = (body: Record<string, unknown>) => s.send("POST", CAS, { projectId: s.projectId, type: "root", commonName: "X", keyAlgorithm: "RSA_2048", ttlDays: 30, ...body });
    expectError(await create({ name: "orphan", type: "intermediate" }), 400);
    expectError(await create({ name: "rooted", parentCaId: root.id }), 400);
    expectError(await create({ name: "acme-root" }), 400);
    expectError(await create({ name: "too-long", type: "intermediate", parentCaId: root.id, ttlDays: 400 }), 400);
    expectError(await create({ name: "Bad Name" }), 422);
    expectError(await create({ name: "weak", keyAlgorithm: "RSA_1024" }), 422);
    expectError(await create({ name: "zero", ttlDays: 0 }), 422);
    const other = await createProject(s.api, s.token, { projectName: "Other PKI", type: "cert-manager" });
    expectError(await create({ projectId: other.id, name: "foreign", type: "intermediate", parentCaId: root.id }), 400);
    const secrets = await createProject(s.api, s.token, { projectName: "Secrets" });
    expectError(await create({ projectId: secrets.id, name: "wrong-type" }), 400);
    expectError(await s.send("GET", `${CAS}/00000000-0000-4000-8000-000000000000`), 404);
  });

  maybe("creates profiles under the issuerType and caId rules", async (s) => {
    const ca = await createCa(s, { name: "profile-root", commonName: "Profile Root" });
    const profile = await createProfile(s, { slug: "web", issuerType: "ca", caId: ca.id, enrollmentType: "api", defaults: { ttlDays: 30 } });
    expect(Object.keys(profile).sort()).toEqual(PROFILE_KEYS);
    expect(profile).toMatchObject({
      caId: ca.id,
      issuerType: "ca",
      enrollmentType: "api",
      description: "",
      certificatePolicyId: null,
      estConfigId: null,
      apiConfigId: null,
      acmeConfigId: null,
      scepConfigId: null,
      externalConfigs: null,
      defaults: { ttlDays: 30 },
    });
    const create = (body: Record<string, unknown>) => s.send("POST", PROFILES, { projectId: s.projectId, ...body });
    expectError(await create({ slug: "no-ca", issuerType: "ca" }), 400);
    expectError(await create({ slug: "self-with-ca", issuerType: "self-signed", caId: ca.id }), 400);
    expectError(await create({ slug: "web", issuerType: "self-signed" }), 400);
    expectError(await create({ slug: "unknown-ca", issuerType: "ca", caId: "00000000-0000-4000-8000-000000000000" }), 400);
    expectError(await create({ slug: "ecdsa-on-ec", issuerType: "ca", caId: ca.id, defaults: { signatureAlgorithm: "RSA-SHA256" } }), 400);
    expectError(await create({ slug: "est", issuerType: "self-signed", enrollmentType: "est" }), 422);
    expectError(await create({ slug: "Upper", issuerType: "self-signed" }), 422);
    const other = await createProject(s.api, s.token, { projectName: "Second PKI", type: "cert-manager" });
    expectError(await s.send("POST", PROFILES, { projectId: other.id, slug: "foreign-ca", issuerType: "ca", caId: ca.id }), 400);
    // Slugs are unique per project only.
    const elsewhere = await s.ok("POST", PROFILES, { projectId: other.id, slug: "web", issuerType: "self-signed" });
    expect(elsewhere.certificateProfile.slug).toBe("web");
    const secrets = await createProject(s.api, s.token, { projectName: "Plain secrets" });
    expectError(await s.send("POST", PROFILES, { projectId: secrets.id, slug: "x", issuerType: "self-signed" }), 400);
  });

  maybe("PATCH enforces every SPEC bound on both sides", async (s) => {
    const profile = await createProfile(s, { slug: "patch-me", issuerType: "self-signed", externalConfigs: { template: "t" } });
    const patch = (body: Record<string, unknown>) => s.send("PATCH", `${PROFILES}/${profile.id}`, body);
    await expectBound((slug) => patch({ slug }), ["a", "0-9", "-a-", "a".repeat(255)], ["", "a".repeat(256), "Upper", "under_score", "sp ace"]);
    await expectBound((description) => patch({ description }), ["", "d".repeat(255)], ["d".repeat(256), 7]);
    await expectBound(
      (ttlDays) => patch({ defaults: { ttlDays } }),
      [1, 36_500],
      [0, -1, 1.5, "30"],
    );
    await expectBound(
      (defaults) => patch({ defaults }),
      [
        {
          commonName: "svc.test",
          organization: "Acme",
          organizationalUnit: "Ops",
          country: "NL",
          state: "NH",
          locality: "Amsterdam",
          keyUsages: ["digital_signature", "key_encipherment"],
          extendedKeyUsages: ["server_auth", "client_auth"],
          subjectAltNames: [{ value: "svc.test" }, { type: "ip_address", value: "10.0.0.1" }],
          domainComponents: ["acme", "test"],
          customExtensions: [{ oid: "1.3.6.1.4.1.99999.1", label: "team", critical: false, value: "ops" }],
        },
        {},
      ],
      [{ unknownField: 1 }, { keyUsages: ["fly"] }, { country: "NLD" }, { subjectAltNames: [{ type: "dns_name", value: "not a host" }] }, { customExtensions: [{ oid: "2.5.29.17", value: "x" }] }],
    );
    await expectBound((externalConfigs) => patch({ externalConfigs }), [{ template: "x" }, null], [{ template: 1 }, "template"]);
    const updated = await s.ok("GET", `${PROFILES}/${profile.id}`);
    expect(updated.certificateProfile).toMatchObject({ externalConfigs: null, defaults: {} });

    await createProfile(s, { slug: "taken", issuerType: "self-signed" });
    expectError(await patch({ slug: "taken" }), 400);
    expectError(await s.send("PATCH", `${PROFILES}/00000000-0000-4000-8000-000000000000`, { description: "x" }), 404);
  });

  maybe("lists profiles with offset, limit 1–100 and a case-insensitive search", async (s) => {
    const other = await createProject(s.api, s.token, { projectName: "List PKI", type: "cert-manager" });
    for (const slug of ["alpha-edge", "beta-edge", "gamma-core"]) {
      await s.ok("POST", PROFILES, { projectId: other.id, slug, description: slug === "gamma-core" ? "Core EDGE routers" : "", issuerType: "self-signed" });
    }
    const list = (params: Record<string, string | number | undefined>) => s.send("GET", `${PROFILES}${q({ projectId: other.id, ...params })}`);
    const all = await list({});
    expect(all.body.totalCount).toBe(3);
    expect(all.body.certificateProfiles.map((p: { slug: string }) => p.slug)).toEqual(["alpha-edge", "beta-edge", "gamma-core"]);
    expect((await list({ offset: 1, limit: 1 })).body.certificateProfiles.map((p: { slug: string }) => p.slug)).toEqual(["beta-edge"]);
    expect((await list({ search: "EDGE" })).body.totalCount).toBe(3);
    expect((await list({ search: "core" })).body.certificateProfiles.map((p: { slug: string }) => p.slug)).toEqual(["gamma-core"]);
    await expectBound((limit) => list({ limit: limit as number }), [1, 100], [0, 101, "x"]);
    await expectBound((offset) => list({ offset: offset as number }), [0, 5], [-1, "1.5"]);
  });

  maybe("issues EC and RSA certificates whose chains openssl verifies", async (s) => {
    const ecRoot = await createCa(s, { name: "ec-root", commonName: "EC Root", keyAlgorithm: "EC_secp384r1" });
    const ecIssuing = await createCa(s, { name: "ec-issuing", type: "intermediate", parentCaId: ecRoot.id, commonName: "EC Issuing", ttlDays: 90 });
    const rsaRoot = await createCa(s, { name: "rsa-root", commonName: "RSA Root", keyAlgorithm: "RSA_2048" });
    const cases = [
      { ca: ecIssuing, root: ecRoot, keyAlgorithm: "EC_prime256v1", slug: "ec-leaf" },
      { ca: rsaRoot, root: rsaRoot, keyAlgorithm: "RSA_2048", slug: "rsa-leaf" },
    ];
    for (const { ca, root, keyAlgorithm, slug } of cases) {
      const profile = await createProfile(s, {
        slug,
        issuerType: "ca",
        caId: ca.id,
        defaults: { ttlDays: 30, keyAlgorithm, organization: "Acme", keyUsages: ["digital_signature"], extendedKeyUsages: ["server_auth"] },
      });
      const issued = await s.ok("POST", CERTIFICATES, {
        profileId: profile.id,
        attributes: { commonName: `${slug}.acme.test`, subjectAltNames: [{ type: "dns_name", value: `${slug}.acme.test` }], ttl: "7d" },
      });
      expect(issued.status).toBe("issued");
      expect(Object.keys(issued.certificate).sort()).toEqual(["certificate", "certificateChain", "certificateId", "issuingCaCertificate", "privateKey", "serialNumber"]);
      expect(issued.certificate.issuingCaCertificate).toBe(ca.certificate);
      expect(issued.certificate.certificateChain).toBe(ca.certificate + ca.certificateChain);
      const shown = await opensslVerifies(issued.certificate.certificate, issued.certificate.certificateChain, root.certificate, issued.certificate.privateKey);
      expect(shown).toContain(`CN = ${slug}.acme.test`);
      expect(shown).toContain("O = Acme");
      expect(shown).toContain(`DNS:${slug}.acme.test`);

      const stored = await s.ok("GET", `${CERTIFICATES}/${issued.certificate.certificateId}`);
      expect(stored.certificate).toMatchObject({
        source: "issued",
        status: "active",
        caId: ca.id,
        profileId: profile.id,
        commonName: `${slug}.acme.test`,
        serialNumber: issued.certificate.serialNumber,
        keyAlgorithm,
        isCA: false,
        subjectAltNames: [{ type: "dns_name", value: `${slug}.acme.test` }],
        certificate: issued.certificate.certificate,
      });
      expect(Date.parse(stored.certificate.notAfter) - Date.parse(stored.certificate.notBefore)).toBe(7 * 86_400_000);
      expect(JSON.stringify(stored)).not.toMatch(/PRIVATE KEY/);
    }
  });

  maybe("issues for a CSR, from the CSR's key and subject, without a private key", async (s) => {
    const root = await createCa(s, { name: "csr-root", commonName: "CSR Root" });
    const profile = await createProfile(s, { slug: "csr", issuerType: "ca", caId: root.id, defaults: { ttlDays: 10 } });
    const ws = await workspace();
    let csr: string;
    try {
      const made = await ws.openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem", "-subj", "/CN=csr.acme.test/O=Requester",
      );
      expect(made.code, made.stderr).toBe(0);
      csr = made.stdout;
    } finally {
      await ws.dispose();
    }
    const issued = await s.ok("POST", CERTIFICATES, { profileId: profile.id, csr });
    expect(issued.certificate.privateKey).toBeUndefined();
    const shown = await opensslVerifies(issued.certificate.certificate, issued.certificate.certificateChain, root.certificate);
    expect(shown).toContain("CN = csr.acme.test");
    expectError(await s.send("POST", CERTIFICATES, { profileId: profile.id, csr: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n" }), 400);
    const selfSigned = await createProfile(s, { slug: "csr-self", issuerType: "self-signed", defaults: { ttlDays: 1 } });
    expectError(await s.send("POST", CERTIFICATES, { profileId: selfSigned.id, csr }), 400);
  });

  maybe("issues self-signed certificates and refuses issuance without a lifetime", async (s) => {
    const profile = await createProfile(s, { slug: "self", issuerType: "self-signed", defaults: { commonName: "self.acme.test", keyAlgorithm: "EC_prime256v1" } });
    expectError(await s.send("POST", CERTIFICATES, { profileId: profile.id }), 400);
    const issued = await s.ok("POST", CERTIFICATES, { profileId: profile.id, attributes: { ttl: "1d" } });
    expect(issued.certificate.issuingCaCertificate).toBe(issued.certificate.certificate);
    await opensslVerifies(issued.certificate.certificate, issued.certificate.certificate, issued.certificate.certificate);
    expectError(await s.send("POST", CERTIFICATES, { profileId: profile.id, attributes: { ttl: "1d", keyUsages: ["fly"] } }), 422);
    expectError(await s.send("POST", CERTIFICATES, { profileId: "00000000-0000-4000-8000-000000000000" }), 404);
  });

  maybe("lists certificates newest first and keeps them when their profile is deleted", async (s) => {
    const other = await createProject(s.api, s.token, { projectName: "Listing PKI", type: "cert-manager" });
    const { certificateProfile } = await s.ok("POST", PROFILES, { projectId: other.id, slug: "short", issuerType: "self-signed", defaults: { ttlDays: 1, keyAlgorithm: "EC_prime256v1" } });
    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) {
      s.api.clock.advance(1000);
      const issued = await s.ok("POST", CERTIFICATES, { profileId: certificateProfile.id, attributes: { commonName: `${name}.acme.test` } });
      ids.push(issued.certificate.certificateId);
    }
    const list = (params: Record<string, string | number>) => s.ok("GET", `${CERTIFICATES}${q({ projectId: other.id, ...params })}`);
    const all = await list({});
    expect(all.totalCount).toBe(3);
    expect(all.certificates.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    expect((await list({ search: "TWO" })).certificates.map((c: { commonName: string }) => c.commonName)).toEqual(["two.acme.test"]);
    expect((await list({ offset: 2, limit: 5 })).certificates.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expectError(await s.send("GET", `${CERTIFICATES}${q({ projectId: other.id, limit: 101 })}`), 422);

    const deleted = await s.ok("DELETE", `${PROFILES}/${certificateProfile.id}`);
    expect(deleted.certificateProfile.id).toBe(certificateProfile.id);
    expectError(await s.send("GET", `${PROFILES}/${certificateProfile.id}`), 404);
    const kept = await s.ok("GET", `${CERTIFICATES}/${ids[0]}`);
    expect(kept.certificate.profileId).toBeNull();
  });
});
