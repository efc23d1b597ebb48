import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspace, type Workspace } from "@strongroom/core/testing";
import { backendAvailable, backends, bootstrap, createProject, createUser, expectError, startApi, type TestApi } from "../../src/testing/harness.js";

/**
 * A certificate's lifecycle over HTTP as Infisical's API drives it, on every backend, checked with
 * the real openssl: issuance with Infisical's attribute names, profiles by slug, lists per profile
 * and per project, renewal, revocation with a reason and the CA's CRL.
 */

const CAS = "/api/v1/cert-manager/ca/internal";
const PROFILES = "/api/v1/cert-manager/certificate-profiles";
const CERTIFICATES = "/api/v1/cert-manager/certificates";
const DAY = 86_400_000;

describe.each(backends)("certificate lifecycle on %s", (backend) => {
  let api: TestApi;
  let ws: Workspace;
  let available = true;
  let token: string;
  let project: { id: string; slug: string };
  let root: any;
  let issuing: any;
  let profile: any;
  let selfSigned: any;
  const as: Record<"viewer" | "rival" | "noCerts", string> = { viewer: "", rival: "", noCerts: "" };

  const call = (method: string, path: string, body?: unknown, who = token) => api.request(method, path, { token: who, ...(body !== undefined ? { body } : {}) });
  async function ok(method: string, path: string, body?: unknown, who = token) {
    const res = await call(method, path, body, who);
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const q = (params: Record<string, string | number>) => `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;
  const issue = (body: Record<string, unknown>) => ok("POST", CERTIFICATES, { profileId: profile.id, ...body });
  /** Refused one way or the other, never an answer with the project's data. */
  const refusedToRival = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, body, as.rival);
    expect([403, 404], `${method} ${path} → ${res.status}`).toContain(res.status);
  };

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    ws = await workspace();
    const world = await bootstrap(api);
    token = world.admin.token;
    project = await createProject(api, token, { projectName: "Lifecycle PKI", type: "cert-manager" });
    root = (await ok("POST", CAS, { projectId: project.id, name: "life-root", type: "root", commonName: "Life Root CA", keyAlgorithm: "EC_prime256v1", ttlDays: 365 })).ca;
    issuing = (
      await ok("POST", CAS, { projectId: project.id, name: "life-issuing", type: "intermediate", parentCaId: root.id, commonName: "Life Issuing CA", keyAlgorithm: "EC_prime256v1", ttlDays: 200 })
    ).ca;
    profile = (
      await ok("POST", PROFILES, {
        projectId: project.id,
        slug: "web-servers",
        issuerType: "ca",
        caId: issuing.id,
        defaults: { ttlDays: 30, keyAlgorithm: "EC_prime256v1", keyUsages: ["digital_signature"], extendedKeyUsages: ["server_auth"] },
      })
    ).certificateProfile;
    selfSigned = (await ok("POST", PROFILES, { projectId: project.id, slug: "self-signed", issuerType: "self-signed", defaults: { ttlDays: 10, keyAlgorithm: "EC_prime256v1" } }))
      .certificateProfile;
    await ws.write("root.pem", root.certificate);
    await ws.write("issuing.pem", issuing.certificate);
    await ws.write("cas.pem", issuing.certificate + root.certificate);

    const viewer = await createUser(api, token, world.admin.orgId, "pki-viewer@acme.test");
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [viewer.email], roleSlugs: ["viewer"] });
    as.viewer = viewer.token;
    await ok("POST", `/api/v1/projects/${project.id}/roles`, { slug: "profiles-only", name: "Profiles only", permissions: [{ subject: "certificate-profiles", action: ["read"] }] });
    const narrow = await createUser(api, token, world.admin.orgId, "pki-narrow@acme.test");
    await ok("POST", `/api/v2/workspace/${project.id}/memberships`, { usernames: [narrow.email], roleSlugs: ["profiles-only"] });
    as.noCerts = narrow.token;
    const rivalOrg = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival PKI" } });
    as.rival = (await createUser(api, world.admin.userToken, rivalOrg.body.organization.id, "boss@rival-pki.test", "admin")).token;
  });
  afterAll(async () => {
    if (!available) return;
    await ws.dispose();
    await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));
  /** openssl judges validity at the server's (manual) clock, not the machine's. */
  const atTime = () => String(Math.floor(api.clock.now().getTime() / 1000) + 1);

  maybe("issues with Infisical's attribute names: altNames, notBefore/notAfter, removeRootsFromChain", async () => {
    // Backdated, as far as the issuing CA allows.
    const notBefore = issuing.notBefore;
    const notAfter = new Date(Date.parse(notBefore) + 20 * DAY).toISOString();
    const { certificate } = await issue({
      attributes: { commonName: "api.life.test", altNames: [{ type: "dns_name", value: "api.life.test" }, { type: "ip_address", value: "192.0.2.7" }], notBefore, notAfter },
      removeRootsFromChain: true,
    });
    // The root is left out of the chain; the issuing CA stays.
    expect(certificate.certificateChain).toBe(issuing.certificate);
    await ws.write("api.pem", certificate.certificate);
    await ws.write("untrusted.pem", certificate.certificateChain);
    const verified = await ws.openssl("verify", "-attime", atTime(), "-CAfile", "root.pem", "-untrusted", "untrusted.pem", "api.pem");
    expect(verified.stdout.trim(), verified.stderr).toBe("api.pem: OK");
    const text = (await ws.openssl("x509", "-in", "api.pem", "-noout", "-ext", "subjectAltName", "-startdate", "-enddate")).stdout;
    expect(text).toContain("DNS:api.life.test");
    expect(text).toContain("IP Address:192.0.2.7");
    const stored = (await ok("GET", `${CERTIFICATES}/${certificate.certificateId}`)).certificate;
    expect(stored).toMatchObject({ notBefore, notAfter, status: "active", revokedAt: null, revocationReason: null, renewedFromCertificateId: null });
    const withRoot = await issue({ attributes: { commonName: "full.life.test", ttl: "2d" } });
    expect(withRoot.certificate.certificateChain).toBe(issuing.certificate + root.certificate);

    const refused = (attributes: Record<string, unknown>) => call("POST", CERTIFICATES, { profileId: profile.id, attributes });
    expectError(await refused({ commonName: "x.life.test", ttl: "2d", notAfter }), 422, "ValidationFailure");
    expectError(await refused({ commonName: "x.life.test", notBefore: notAfter, notAfter: notBefore }), 422);
    expectError(await refused({ commonName: "x.life.test", notAfter: "next tuesday" }), 422);
    expectError(await refused({ commonName: "x.life.test", altNames: [{ type: "dns_name", value: "a.test" }], subjectAltNames: [{ value: "b.test" }] }), 422);
    expectError(await refused({ commonName: "x.life.test", altNames: [{ type: "ip_address", value: "not-an-ip" }] }), 422);
    // Past the issuing CA's own validity: the CA cannot vouch for it.
    expectError(await refused({ commonName: "x.life.test", notAfter: new Date(Date.now() + 400 * DAY).toISOString() }), 400, "BadRequest");
  });

  maybe("gets a profile by slug", async () => {
    const got = await ok("GET", `${PROFILES}/slug/web-servers${q({ projectId: project.id })}`);
    expect(got.certificateProfile).toMatchObject({ id: profile.id, slug: "web-servers", caId: issuing.id });
    expect((await ok("GET", `${PROFILES}/slug/web-servers${q({ projectId: project.id })}`, undefined, as.viewer)).certificateProfile.id).toBe(profile.id);
    expectError(await call("GET", `${PROFILES}/slug/web-servers${q({ projectId: project.id })}`, undefined, "srt_nope"), 401, "UnauthorizedError");
    expectError(await call("GET", `${PROFILES}/slug/nope${q({ projectId: project.id })}`), 404, "NotFound");
    expectError(await call("GET", `${PROFILES}/slug/Not%20A%20Slug${q({ projectId: project.id })}`), 422, "ValidationFailure");
    expectError(await call("GET", `${PROFILES}/slug/web-servers`), 422);
    const other = await createProject(api, token, { projectName: "Other PKI", type: "cert-manager" });
    expectError(await call("GET", `${PROFILES}/slug/web-servers${q({ projectId: other.id })}`), 404);
    await refusedToRival("GET", `${PROFILES}/slug/web-servers${q({ projectId: project.id })}`);
  });

  maybe("lists certificates per profile and per project, by status", async () => {
    const listProfile = await createProject(api, token, { projectName: "Listing PKI", type: "cert-manager" });
    const ca = (await ok("POST", CAS, { projectId: listProfile.id, name: "list-root", type: "root", commonName: "List Root", keyAlgorithm: "EC_prime256v1", ttlDays: 100 })).ca;
    const p1 = (await ok("POST", PROFILES, { projectId: listProfile.id, slug: "one", issuerType: "ca", caId: ca.id, defaults: { ttlDays: 5 } })).certificateProfile;
    const soon = () => new Date(api.clock.now().getTime() + 60_000).toISOString();
    const p2 = (await ok("POST", PROFILES, { projectId: listProfile.id, slug: "two", issuerType: "ca", caId: ca.id, defaults: { ttlDays: 50 } })).certificateProfile;
    const ids: string[] = [];
    for (const name of ["a", "b", "c"]) {
      api.clock.advance(1000);
      const attributes = { commonName: `${name}.list.test`, ...(name === "c" ? {} : { notAfter: soon() }) };
      ids.push((await ok("POST", CERTIFICATES, { profileId: p1.id, attributes })).certificate.certificateId);
    }
    await ok("POST", CERTIFICATES, { profileId: p2.id, attributes: { commonName: "other.list.test" } });
    await ok("POST", `${CERTIFICATES}/${ids[0]}/revoke`, { revocationReason: "SUPERSEDED" });

    const byProfile = await ok("GET", `${PROFILES}/${p1.id}/certificates`);
    expect(byProfile.totalCount).toBe(3);
    expect(byProfile.certificates.map((c: any) => [c.commonName, c.status])).toEqual([
      ["c.list.test", "active"],
      ["b.list.test", "active"],
      ["a.list.test", "revoked"],
    ]);
    expect((await ok("GET", `${PROFILES}/${p1.id}/certificates${q({ status: "revoked" })}`)).certificates.map((c: any) => c.id)).toEqual([ids[0]]);
    expect((await ok("GET", `${PROFILES}/${p1.id}/certificates${q({ offset: 1, limit: 1 })}`)).certificates.map((c: any) => c.commonName)).toEqual(["b.list.test"]);
    expect((await ok("GET", `${PROFILES}/${p1.id}/certificates${q({ search: "B.LIST" })}`)).certificates).toHaveLength(1);

    const byProject = await ok("GET", `/api/v2/workspace/${listProfile.slug}/certificates`);
    expect(byProject.totalCount).toBe(4);
    expect((await ok("GET", `/api/v2/workspace/${listProfile.slug}/certificates${q({ status: "active", commonName: "other" })}`)).certificates.map((c: any) => c.commonName)).toEqual([
      "other.list.test",
    ]);
    api.clock.advance(120_000);
    expect((await ok("GET", `${PROFILES}/${p1.id}/certificates${q({ status: "expired" })}`)).certificates.map((c: any) => c.commonName)).toEqual(["b.list.test"]);
    expect((await ok("GET", `${PROFILES}/${p1.id}/certificates${q({ status: "active" })}`)).certificates.map((c: any) => c.commonName)).toEqual(["c.list.test"]);

    expectError(await call("GET", `${PROFILES}/${p1.id}/certificates`, undefined, "srt_nope"), 401);
    expectError(await call("GET", `${PROFILES}/00000000-0000-4000-8000-000000000000/certificates`), 404, "NotFound");
    expectError(await call("GET", `${PROFILES}/${p1.id}/certificates${q({ status: "lost" })}`), 422, "ValidationFailure");
    expectError(await call("GET", `/api/v2/workspace/${listProfile.slug}/certificates${q({ limit: 101 })}`), 422);
    expectError(await call("GET", "/api/v2/workspace/no-such-project/certificates"), 404);
    await refusedToRival("GET", `${PROFILES}/${p1.id}/certificates`);
    await refusedToRival("GET", `/api/v2/workspace/${listProfile.slug}/certificates`);
  });

  maybe("refuses the list routes to a member without read on certificates", async () => {
    expectError(await call("GET", `${PROFILES}/${profile.id}/certificates`, undefined, as.noCerts), 403, "PermissionDenied");
    expectError(await call("GET", `/api/v2/workspace/${project.slug}/certificates`, undefined, as.noCerts), 403, "PermissionDenied");
    expect((await ok("GET", `${PROFILES}/slug/web-servers${q({ projectId: project.id })}`, undefined, as.noCerts)).certificateProfile.id).toBe(profile.id);
  });

  maybe("renews a certificate as it was issued, from now, with a new key", async () => {
    const original = (await issue({ attributes: { commonName: "renew.life.test", altNames: [{ type: "dns_name", value: "renew.life.test" }], ttl: "10d" } })).certificate;
    api.clock.advance(60_000);
    const renewed = await ok("POST", `${CERTIFICATES}/${original.certificateId}/renew`, {});
    expect(Object.keys(renewed).sort()).toEqual(["certificate", "certificateChain", "certificateId", "certificateRequestId", "issuingCaCertificate", "privateKey", "serialNumber"]);
    expect(renewed.certificateId).not.toBe(original.certificateId);
    expect(renewed.serialNumber).not.toBe(original.serialNumber);
    expect(renewed.privateKey).not.toBe(original.privateKey);
    const stored = (await ok("GET", `${CERTIFICATES}/${renewed.certificateId}`)).certificate;
    const before = (await ok("GET", `${CERTIFICATES}/${original.certificateId}`)).certificate;
    expect(stored).toMatchObject({ commonName: "renew.life.test", profileId: profile.id, caId: issuing.id, renewedFromCertificateId: original.certificateId });
    expect(stored.subjectAltNames).toEqual(before.subjectAltNames);
    expect(Date.parse(stored.notAfter) - Date.parse(stored.notBefore)).toBe(Date.parse(before.notAfter) - Date.parse(before.notBefore));
    expect(Date.parse(stored.notBefore)).toBeGreaterThan(Date.parse(before.notBefore));
    await ws.write("renewed.pem", renewed.certificate);
    await ws.write("renewed-key.pem", renewed.privateKey);
    const verified = await ws.openssl("verify", "-attime", atTime(), "-CAfile", "root.pem", "-untrusted", "issuing.pem", "renewed.pem");
    expect(verified.stdout.trim(), verified.stderr).toBe("renewed.pem: OK");
    const fromCert = await ws.openssl("x509", "-in", "renewed.pem", "-noout", "-pubkey");
    const fromKey = await ws.openssl("pkey", "-in", "renewed-key.pem", "-pubout");
    expect(fromKey.stdout).toBe(fromCert.stdout);
    const noRoot = await ok("POST", `${CERTIFICATES}/${original.certificateId}/renew`, { removeRootsFromChain: true });
    expect(noRoot.certificateChain).toBe(issuing.certificate);

    // A self-signed one renews self-signed.
    const own = (await ok("POST", CERTIFICATES, { profileId: selfSigned.id, attributes: { commonName: "own.life.test" } })).certificate;
    const ownRenewed = await ok("POST", `${CERTIFICATES}/${own.certificateId}/renew`, {});
    expect(ownRenewed.issuingCaCertificate).toBe(ownRenewed.certificate);

    const path = `${CERTIFICATES}/${original.certificateId}/renew`;
    expectError(await call("POST", path, {}, "srt_nope"), 401);
    expectError(await call("POST", path, {}, as.viewer), 403, "PermissionDenied");
    expectError(await call("POST", `${CERTIFICATES}/00000000-0000-4000-8000-000000000000/renew`, {}), 404);
    expectError(await call("POST", path, { renewBeforeDays: 3 }), 422, "ValidationFailure");
    await refusedToRival("POST", path, {});
  });

  maybe("renews a certificate stored before its issuance was recorded, as the certificate itself says it was issued", async () => {
    const original = (
      await issue({
        attributes: {
          commonName: "legacy.life.test",
          organization: "Life Inc",
          country: "DE",
          altNames: [{ type: "dns_name", value: "legacy.life.test" }, { type: "ip_address", value: "10.0.0.7" }],
          keyUsages: ["digital_signature", "key_encipherment"],
          extendedKeyUsages: ["server_auth", "client_auth"],
          ttl: "9d",
        },
      })
    ).certificate;
    // As a row written before the lifecycle change looks: no issuance record.
    await api.strongroom.context.storage.tables.certificates.update({ id: original.certificateId }, { issuance: null });
    api.clock.advance(60_000);
    const renewed = await ok("POST", `${CERTIFICATES}/${original.certificateId}/renew`, {});
    expect(renewed.privateKey).toEqual(expect.any(String));
    await ws.write("legacy.pem", original.certificate);
    await ws.write("legacy-renewed.pem", renewed.certificate);
    const verified = await ws.openssl("verify", "-attime", atTime(), "-CAfile", "root.pem", "-untrusted", "issuing.pem", "legacy-renewed.pem");
    expect(verified.stdout.trim(), verified.stderr).toBe("legacy-renewed.pem: OK");
    // The same subject, names, usages and lifetime; a new key, validity and serial.
    const show = async (file: string) =>
      (await ws.openssl("x509", "-in", file, "-noout", "-subject", "-ext", "subjectAltName,keyUsage,extendedKeyUsage,basicConstraints", "-nameopt", "RFC2253")).stdout;
    expect(await show("legacy-renewed.pem")).toBe(await show("legacy.pem"));
    const [before, after] = [(await ok("GET", `${CERTIFICATES}/${original.certificateId}`)).certificate, (await ok("GET", `${CERTIFICATES}/${renewed.certificateId}`)).certificate];
    expect(after).toMatchObject({ keyAlgorithm: before.keyAlgorithm, caId: issuing.id, renewedFromCertificateId: original.certificateId });
    expect(Date.parse(after.notAfter) - Date.parse(after.notBefore)).toBe(Date.parse(before.notAfter) - Date.parse(before.notBefore));
    expect(after.serialNumber).not.toBe(before.serialNumber);
    // The renewed row records its issuance: it renews again the ordinary way.
    expect((await call("POST", `${CERTIFICATES}/${renewed.certificateId}/renew`, {})).status).toBe(200);
  });

  maybe("renews a certificate issued for a CSR only with a new CSR", async () => {
    const gen = (name: string) => ws.openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}.life.test`);
    expect((await gen("csr-one")).code).toBe(0);
    expect((await gen("csr-two")).code).toBe(0);
    const { readFile } = await import("node:fs/promises");
    const csr = async (name: string) => readFile(`${ws.dir}/${name}.csr`, "utf8");
    const issued = (await issue({ csr: await csr("csr-one") })).certificate;
    expect(issued.privateKey).toBeUndefined();
    expectError(await call("POST", `${CERTIFICATES}/${issued.certificateId}/renew`, {}), 400, "BadRequest");
    const renewed = await ok("POST", `${CERTIFICATES}/${issued.certificateId}/renew`, { csr: await csr("csr-two") });
    expect(renewed.privateKey).toBeUndefined();
    await ws.write("csr-renewed.pem", renewed.certificate);
    const fromCert = await ws.openssl("x509", "-in", "csr-renewed.pem", "-noout", "-pubkey");
    const fromKey = await ws.openssl("pkey", "-in", "csr-two.key", "-pubout");
    expect(fromCert.stdout).toBe(fromKey.stdout);
  });

  maybe("revokes with a reason, and the CA's CRL lists it for openssl", async () => {
    const crlOf = async () => {
      const list = await ok("GET", `${CAS}/${issuing.id}/crls`);
      expect(list).toHaveLength(1);
      return list[0];
    };
    const leaf = (await issue({ attributes: { commonName: "revoke.life.test", ttl: "5d" } })).certificate;
    const kept = (await issue({ attributes: { commonName: "kept.life.test", ttl: "5d" } })).certificate;
    await ws.write("revoke.pem", leaf.certificate);
    await ws.write("kept.pem", kept.certificate);
    const check = async (cert: string) => {
      await ws.write("crl.pem", (await crlOf()).crl);
      return ws.openssl("verify", "-attime", atTime(), "-crl_check", "-CAfile", "cas.pem", "-CRLfile", "crl.pem", cert);
    };
    expect((await check("revoke.pem")).code).toBe(0);
    const first = await crlOf();

    const revoked = await ok("POST", `${CERTIFICATES}/${leaf.certificateId}/revoke`, { revocationReason: "KEY_COMPROMISE" });
    expect(revoked).toEqual({ message: expect.any(String), serialNumber: leaf.serialNumber, revokedAt: api.clock.now().toISOString() });
    const after = await crlOf();
    expect(after.crlNumber).toBe(first.crlNumber + 1);
    expect(after.revokedCount).toBe(first.revokedCount + 1);
    await ws.write("crl.pem", after.crl);
    const parsed = await ws.openssl("crl", "-in", "crl.pem", "-noout", "-text", "-CAfile", "issuing.pem");
    expect(`${parsed.stdout}${parsed.stderr}`).toMatch(/verify OK/);
    expect(parsed.stdout).toMatch(/Key Compromise/);
    expect(parsed.stdout.toUpperCase()).toContain(leaf.serialNumber.toUpperCase());
    const refused = await check("revoke.pem");
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/certificate revoked/);
    expect((await check("kept.pem")).code).toBe(0);
    expect((await ok("GET", `${CERTIFICATES}/${leaf.certificateId}`)).certificate).toMatchObject({ status: "revoked", revocationReason: "KEY_COMPROMISE" });

    expectError(await call("POST", `${CERTIFICATES}/${leaf.certificateId}/revoke`, { revocationReason: "SUPERSEDED" }), 400, "BadRequest");
    expectError(await call("POST", `${CERTIFICATES}/${leaf.certificateId}/renew`, {}), 400, "BadRequest");
    const own = (await ok("POST", CERTIFICATES, { profileId: selfSigned.id, attributes: { commonName: "self.life.test" } })).certificate;
    expectError(await call("POST", `${CERTIFICATES}/${own.certificateId}/revoke`, { revocationReason: "SUPERSEDED" }), 400);
    const path = `${CERTIFICATES}/${kept.certificateId}/revoke`;
    expectError(await call("POST", path, { revocationReason: "SUPERSEDED" }, "srt_nope"), 401);
    expectError(await call("POST", path, { revocationReason: "SUPERSEDED" }, as.viewer), 403, "PermissionDenied");
    expectError(await call("POST", `${CERTIFICATES}/00000000-0000-4000-8000-000000000000/revoke`, { revocationReason: "SUPERSEDED" }), 404);
    expectError(await call("POST", path, { revocationReason: "BORED" }), 422, "ValidationFailure");
    expectError(await call("POST", path, {}), 422);
    await refusedToRival("POST", path, { revocationReason: "SUPERSEDED" });
    expect((await ok("GET", `${CERTIFICATES}/${kept.certificateId}`)).certificate.status).toBe("active");

    expect((await ok("GET", `${CAS}/${issuing.id}/crls`, undefined, as.viewer))[0].crlNumber).toBe(after.crlNumber);
    expectError(await call("GET", `${CAS}/${issuing.id}/crls`, undefined, "srt_nope"), 401);
    expectError(await call("GET", `${CAS}/00000000-0000-4000-8000-000000000000/crls`), 404);
    expectError(await call("GET", `${CAS}/${issuing.id}/crls`, undefined, as.noCerts), 403);
    await refusedToRival("GET", `${CAS}/${issuing.id}/crls`);
  });

  maybe("serves each CA's CRL without a token as DER on Infisical's path, updated on revocation, for openssl", async () => {
    const crlId = (await ok("GET", `${CAS}/${issuing.id}/crls`))[0].id as string;
    const download = async (id = crlId) => {
      const res = await fetch(`${api.url}/api/v1/pki/crl/${id}/der`);
      return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const before = await download();
    expect([before.status, before.type]).toEqual([200, "application/pkix-crl"]);
    // DER, not PEM: a SEQUENCE, and openssl reads it only as DER.
    expect(before.bytes[0]).toBe(0x30);
    await writeFile(join(ws.dir, "public.crl"), before.bytes);
    const parsed = await ws.openssl("crl", "-inform", "DER", "-in", "public.crl", "-noout", "-text", "-CAfile", "issuing.pem");
    expect([parsed.code, `${parsed.stdout}${parsed.stderr}`]).toEqual([0, expect.stringMatching(/verify OK/)]);
    expect((await ws.openssl("crl", "-inform", "PEM", "-in", "public.crl", "-noout")).code).not.toBe(0);

    const leaf = (await issue({ attributes: { commonName: "public-crl.life.test", ttl: "5d" } })).certificate;
    await ws.write("public-leaf.pem", leaf.certificate);
    await ok("POST", `${CERTIFICATES}/${leaf.certificateId}/revoke`, { revocationReason: "SUPERSEDED" });
    const after = await download();
    await writeFile(join(ws.dir, "public.crl"), after.bytes);
    const listed = await ws.openssl("crl", "-inform", "DER", "-in", "public.crl", "-noout", "-text");
    expect(listed.stdout.toUpperCase()).toContain(leaf.serialNumber.toUpperCase());
    // What a relying party does with it: refuse the revoked certificate.
    expect((await ws.openssl("crl", "-inform", "DER", "-in", "public.crl", "-out", "public-crl.pem")).code).toBe(0);
    const verified = await ws.openssl("verify", "-attime", atTime(), "-crl_check", "-CAfile", "cas.pem", "-CRLfile", "public-crl.pem", "public-leaf.pem");
    expect(`${verified.stdout}${verified.stderr}`).toMatch(/certificate revoked/);

    expectError(await api.request("GET", "/api/v1/pki/crl/00000000-0000-4000-8000-000000000000/der"), 404, "NotFound");
    // The authenticated list names the same CRL.
    expect((await ok("GET", `${CAS}/${issuing.id}/crls`))[0].id).toBe(crlId);
  });

  maybe("re-signs a CRL near its nextUpdate, and serves the same one until then", async () => {
    const before = (await ok("GET", `${CAS}/${root.id}/crls`))[0];
    expect((await ok("GET", `${CAS}/${root.id}/crls`))[0].crlNumber).toBe(before.crlNumber);
    api.clock.advance(6.5 * DAY);
    const later = (await ok("GET", `${CAS}/${root.id}/crls`))[0];
    expect(later.crlNumber).toBe(before.crlNumber + 1);
    expect(Date.parse(later.nextUpdate)).toBeGreaterThan(Date.parse(before.nextUpdate));
    api.clock.advance(-6.5 * DAY);
  });
});
