import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, workspace, type TestWorld, type Workspace } from "@strongroom/core/testing";

/** The issuance flow end to end — CAs, a profile, certificates — on every store, checked by the real openssl. */
forEachStore("certificate issuance", (store) => {
  let w: TestWorld;
  let ws: Workspace;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), projectType: "cert-manager" });
    ws = await workspace();
  });
  afterAll(async () => {
    await ws?.dispose();
    await w?.close();
  });

  /** The world's clock stands still; openssl judges validity a minute after it. */
  const atTime = () => String(Math.floor(w.clock.now().getTime() / 1000) + 60);

  async function opensslVerifies(name: string, leaf: string, chain: string, root: string): Promise<void> {
    const rootFile = await ws.write(`${name}-root.pem`, root);
    const chainFile = await ws.write(`${name}-chain.pem`, chain);
    const leafFile = await ws.write(`${name}-leaf.pem`, leaf);
    const verified = await ws.openssl("verify", "-attime", atTime(), "-CAfile", rootFile, "-untrusted", chainFile, leafFile);
    expect(verified.stderr).toBe("");
    expect(verified).toMatchObject({ code: 0, stdout: `${leafFile}: OK\n` });
  }

  async function expectKeyOf(name: string, certificate: string, privateKey: string): Promise<void> {
    const keyFile = await ws.write(`${name}-key.pem`, privateKey);
    const certFile = await ws.write(`${name}-cert.pem`, certificate);
    const fromKey = await ws.openssl("pkey", "-in", keyFile, "-pubout");
    expect(fromKey.code).toBe(0);
    expect(fromKey.stdout).toBe((await ws.openssl("x509", "-in", certFile, "-noout", "-pubkey")).stdout);
  }

  const rootCa = () =>
    w.sr.certificateAuthorities.create(w.admin, {
      projectId: w.projectId,
      name: "root",
      type: "root",
      commonName: "Acme Root",
      keyAlgorithm: "EC_prime256v1",
      ttlDays: 3650,
    });

  it("creates a root and an intermediate CA, a profile on the intermediate, and issues a certificate openssl verifies", async () => {
    const { ca: root } = await rootCa();
    // CAs list oldest first; on a clock that stands still, creation order would be left to the ids.
    w.clock.advance(1000);
    const { ca: intermediate } = await w.sr.certificateAuthorities.create(w.admin, {
      projectId: w.projectId,
      name: "issuing",
      type: "intermediate",
      parentCaId: root.id,
      commonName: "Acme Issuing",
      keyAlgorithm: "EC_secp384r1",
      ttlDays: 365,
    });
    expect(intermediate).toMatchObject({ type: "intermediate", status: "active", parentCaId: root.id, certificateChain: root.certificate });
    await opensslVerifies("intermediate", intermediate.certificate, intermediate.certificateChain, root.certificate);
    expect((await w.sr.certificateAuthorities.list(w.admin, { projectId: w.projectId })).cas.map((ca) => ca.id)).toEqual([root.id, intermediate.id]);

    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: w.projectId,
      slug: "web-servers",
      issuerType: "ca",
      caId: intermediate.id,
      defaults: { ttlDays: 30, keyAlgorithm: "EC_prime256v1", keyUsages: ["digital_signature"], extendedKeyUsages: ["server_auth"] },
    });
    const issued = await w.sr.certificates.issue(w.admin, {
      profileId: certificateProfile.id,
      attributes: { commonName: "api.acme.test", subjectAltNames: [{ type: "dns_name", value: "api.acme.test" }] },
    });
    expect(issued.status).toBe("issued");
    expect(issued.certificate.issuingCaCertificate).toBe(intermediate.certificate);
    expect(issued.certificate.certificateChain).toBe(intermediate.certificate + root.certificate);
    await opensslVerifies("leaf", issued.certificate.certificate, issued.certificate.certificateChain, root.certificate);
    await expectKeyOf("leaf", issued.certificate.certificate, issued.certificate.privateKey!);

    const { certificate } = await w.sr.certificates.get(w.admin, { certificateId: issued.certificate.certificateId });
    expect(certificate).toMatchObject({
      source: "issued",
      status: "active",
      caId: intermediate.id,
      profileId: certificateProfile.id,
      commonName: "api.acme.test",
      serialNumber: issued.certificate.serialNumber,
      keyAlgorithm: "EC_prime256v1",
      certificate: issued.certificate.certificate,
    });
    expect(await w.sr.certificates.list(w.admin, { projectId: w.projectId, search: "API.acme" })).toMatchObject({ totalCount: 1 });
  });

  it("issues for a CSR, returning no key", async () => {
    const { ca: root } = await w.sr.certificateAuthorities.create(w.admin, {
      projectId: w.projectId,
      name: "csr-root",
      type: "root",
      commonName: "Acme CSR Root",
      keyAlgorithm: "EC_prime256v1",
      ttlDays: 365,
    });
    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: w.projectId,
      slug: "csr",
      issuerType: "ca",
      caId: root.id,
      defaults: { ttlDays: 7 },
    });
    const made = await ws.openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "csr-key.pem", "-subj", "/CN=device-7", "-out", "device.csr");
    expect(made.code).toBe(0);
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const csr = await readFile(join(ws.dir, "device.csr"), "utf8");
    const issued = await w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id, csr });
    expect(issued.certificate.privateKey).toBeUndefined();
    await opensslVerifies("csr", issued.certificate.certificate, issued.certificate.certificateChain, root.certificate);
    await expectKeyOf("csr", issued.certificate.certificate, await readFile(join(ws.dir, "csr-key.pem"), "utf8"));
  });

  it("issues self-signed certificates, and keeps them when their profile is deleted", async () => {
    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: w.projectId,
      slug: "self",
      issuerType: "self-signed",
      defaults: { ttlDays: 1, commonName: "self.acme.test", keyAlgorithm: "EC_prime256v1" },
    });
    const issued = await w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id });
    const pem = issued.certificate.certificate;
    expect(issued.certificate).toMatchObject({ issuingCaCertificate: pem, certificateChain: pem });
    await opensslVerifies("self", pem, pem, pem);

    await w.sr.certificateProfiles.delete(w.admin, { id: certificateProfile.id });
    await expect(w.sr.certificateProfiles.get(w.admin, { id: certificateProfile.id })).rejects.toMatchObject({ code: "NotFound" });
    const { certificate } = await w.sr.certificates.get(w.admin, { certificateId: issued.certificate.certificateId });
    expect(certificate).toMatchObject({ profileId: null, source: "issued", commonName: "self.acme.test" });
  });
});
