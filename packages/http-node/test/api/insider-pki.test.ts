import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Issue 15, principle 6: issuing a CA is a CA permission. `certificates:create` alone used to be
 * enough to set `basicConstraints.isCA` and walk away with a subordinate CA and its private key.
 */

const CAS = "/api/v1/cert-manager/ca/internal";
const PROFILES = "/api/v1/cert-manager/certificate-profiles";
const CERTIFICATES = "/api/v1/cert-manager/certificates";

describe.each(backends)("issuing CA certificates on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let projectId: string;
  let caId: string;
  let seq = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token, { projectName: "PKI", type: "cert-manager" })).id;
    const ca = await api.request("POST", CAS, {
      token: world.admin.token,
      body: { projectId, type: "root", name: "root", commonName: "Acme Root", ttlDays: 365, keyAlgorithm: "EC_prime256v1" },
    });
    expect(ca.status).toBe(200);
    caId = ca.body.ca.id;
  });
  afterAll(async () => {
    if (available) await api.close();
  });
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /** A machine identity in the project whose only role has these permissions. */
  async function identityWith(permissions: unknown[]) {
    const slug = `pki-role-${++seq}`;
    expect((await api.request("POST", `/api/v1/projects/${projectId}/roles`, { token: world.admin.token, body: { slug, name: slug, permissions } })).status).toBe(200);
    const identity = await createIdentity(api, world.admin.token, world.admin.orgId, `pki-${seq}`);
    const joined = await api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${identity.identityId}`, { token: world.admin.token, body: { role: slug } });
    expect(joined.status).toBe(200);
    return identity;
  }

  async function profile(defaults: Record<string, unknown> = {}): Promise<string> {
    const res = await api.request("POST", PROFILES, {
      token: world.admin.token,
      body: { projectId, slug: `profile-${++seq}`, issuerType: "ca", caId, defaults: { ttlDays: 30, ...defaults } },
    });
    expect(res.status).toBe(200);
    return res.body.certificateProfile.id;
  }

  const issuedCount = async () =>
    (await api.request("GET", `${CERTIFICATES}?projectId=${projectId}`, { token: world.admin.token })).body.totalCount as number;
  const issue = (token: string, profileId: string, attributes: Record<string, unknown>) =>
    api.request("POST", CERTIFICATES, { token, body: { profileId, attributes: { commonName: `host-${++seq}.acme.test`, ...attributes } } });

  const issuerOnly = [
    { subject: "certificates", action: ["read", "create"] },
    { subject: "certificate-profiles", action: ["read"] },
  ];

  maybe("certificates:create alone cannot ask for a CA certificate", async () => {
    const issuer = await identityWith(issuerOnly);
    const leafProfile = await profile();
    const before = await issuedCount();
    for (const basicConstraints of [{ isCA: true }, { isCA: true, pathLength: 0 }, { isCA: true, pathLength: 5 }]) {
      const res = await issue(issuer.token, leafProfile, { basicConstraints });
      expect(expectError(res, 403, "PermissionDenied").message).toMatch(/certificate-authorities/);
      expect(res.body.privateKey).toBeUndefined();
    }
    expect(await issuedCount()).toBe(before);
    // A leaf is still theirs to issue.
    const leaf = await issue(issuer.token, leafProfile, { basicConstraints: { isCA: false } });
    expect(leaf.status).toBe(200);
    const stored = await api.request("GET", `${CERTIFICATES}/${leaf.body.certificate.certificateId}`, { token: world.admin.token });
    expect(stored.body.certificate.isCA).toBe(false);
  });

  maybe("nor get one from a profile whose defaults make CAs", async () => {
    const issuer = await identityWith(issuerOnly);
    const caProfile = await profile({ basicConstraints: { isCA: true, pathLength: 0 }, keyUsages: ["key_cert_sign", "crl_sign"] });
    const before = await issuedCount();
    expectError(await issue(issuer.token, caProfile, {}), 403, "PermissionDenied");
    expect(await issuedCount()).toBe(before);
    // Overriding the default with a leaf is allowed: the certificate is not a CA.
    const leaf = await issue(issuer.token, caProfile, { basicConstraints: { isCA: false }, keyUsages: ["digital_signature"] });
    expect(leaf.status).toBe(200);
  });

  maybe("nor sneak the CA bit in through key usages or custom extensions", async () => {
    const issuer = await identityWith(issuerOnly);
    const leafProfile = await profile();
    expectError(await issue(issuer.token, leafProfile, { keyUsages: ["key_cert_sign"] }), 400);
    expectError(await issue(issuer.token, leafProfile, { customExtensions: [{ oid: "2.5.29.19", value: "DER:30030101ff" }] }), 422);
  });

  maybe("certificate-authorities:create with certificates:create issues a CA certificate", async () => {
    const authority = await identityWith([...issuerOnly, { subject: "certificate-authorities", action: ["create"] }]);
    const res = await issue(authority.token, await profile(), { basicConstraints: { isCA: true, pathLength: 0 } });
    expect(res.status).toBe(200);
    expect(res.body.certificate.privateKey).toMatch(/PRIVATE KEY/);
    const stored = await api.request("GET", `${CERTIFICATES}/${res.body.certificate.certificateId}`, { token: world.admin.token });
    expect(stored.body.certificate.isCA).toBe(true);
    // The CA permission alone does not issue: certificates:create stays required.
    const caOnly = await identityWith([{ subject: "certificate-authorities", action: ["create"] }, { subject: "certificate-profiles", action: ["read"] }]);
    expectError(await issue(caOnly.token, await profile(), { basicConstraints: { isCA: true } }), 403, "PermissionDenied");
  });
});
