import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "@strongroom/core";
import { operationIds, routes, type Route } from "@strongroom/http-node";
import { queryKeys } from "../../src/input.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** Routes anyone may call, or that only create something in the caller's own organization. */
const NOT_TENANT_SCOPED = new Set([
  "system.status",
  "admin.bootstrap",
  "auth.login",
  "auth.universalAuthLogin",
  "auth.revokeToken",
  "auth.renewToken",
  "organizations.create",
  "agentProxies.enroll",
  // Public by design, as CRL distribution points are: a CRL names a CA and revoked serials only.
  "certificateRevocation.downloadCrl",
]);

interface Fixture {
  /** Path/query/body values by parameter name, all naming organization A's resources. */
  values: Record<string, string>;
  /** Values by `{id}` route prefix, where the name alone is ambiguous. */
  ids: [prefix: string, id: string][];
  /** Values of a named param under a route prefix, where the same name means another thing there. */
  scoped: [prefix: string, name: string, value: string][];
  /** Organization A's data that no outsider may ever see in an answer. */
  markers: string[];
}

async function buildOrganizationA(api: TestApi, world: World): Promise<Fixture> {
  const token = world.admin.token;
  const project = await createProject(api, token, { projectName: "IsoProject-A", slug: "iso-project-a" });
  const bot = await createIdentity(api, token, world.admin.orgId, "iso-bot-a", "member");
  await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token, body: { role: "viewer" } });
  const privilege = await api.request("POST", "/api/v2/identity-project-additional-privilege", {
    token,
    body: { identityId: bot.identityId, projectId: project.id, slug: "iso-privilege", permissions: [{ subject: "secrets", action: ["read"] }] },
  });
  const role = await api.request("POST", `/api/v1/projects/${project.id}/roles`, { token, body: { slug: "iso-role", name: "IsoRole-A", permissions: [] } });
  await api.request("POST", "/api/v4/secrets/ISO_SECRET", { token, body: { projectId: project.id, environment: "dev", secretValue: "iso-secret-value-A" } });
  const tag = await api.request("POST", `/api/v1/workspace/${project.id}/tags`, { token, body: { slug: "iso-tag", name: "IsoTag-A", color: "#ff0000" } });
  const member = await createUser(api, token, world.admin.orgId, "iso-member@acme.test");
  const membership = await api.request("POST", `/api/v2/workspace/${project.id}/memberships`, { token, body: { usernames: [member.email], roleSlugs: ["viewer"] } });
  const proxy = await api.request("POST", "/api/v1/agent-vault/proxies", { token, body: { name: "IsoProxy-A" } });
  const service = await api.request("POST", "/api/v1/proxied-services", {
    token,
    body: { projectId: project.id, environment: "dev", secretPath: "/", name: "IsoService-A", hostPattern: "api.iso-a.test", credentials: [{ secretKey: "ISO_SECRET", headerName: "x-api-key" }] },
  });
  const environmentId = project.environments[0].id;
  const folder = await api.request("POST", "/api/v1/folders", { token, body: { projectId: project.id, environment: "dev", name: "iso-folder" } });
  await api.request("POST", "/api/v1/folders", { token, body: { projectId: project.id, environment: "prod", name: "iso-shared" } });
  const secretImport = await api.request("POST", "/api/v1/secret-imports", {
    token,
    body: { projectId: project.id, environment: "dev", path: "/", import: { environment: "prod", path: "/iso-shared" } },
  });
  const secretRow = await api.request("GET", `/api/v4/secrets/ISO_SECRET?projectId=${project.id}&environment=dev`, { token });
  const pki = await createProject(api, token, { projectName: "IsoPki-A", slug: "iso-pki-a", type: "cert-manager" });
  const ca = await api.request("POST", "/api/v1/cert-manager/ca/internal", {
    token,
    body: { projectId: pki.id, name: "iso-ca-a", type: "root", commonName: "IsoCa-A", keyAlgorithm: "EC_prime256v1", ttlDays: 30 },
  });
  const profile = await api.request("POST", "/api/v1/cert-manager/certificate-profiles", {
    token,
    body: { projectId: pki.id, slug: "iso-profile-a", issuerType: "ca", caId: ca.body?.ca?.id, defaults: { ttlDays: 5 } },
  });
  const issued = await api.request("POST", "/api/v1/cert-manager/certificates", {
    token,
    body: { profileId: profile.body?.certificateProfile?.id, attributes: { commonName: "iso-cert-a.test" } },
  });
  const keys = await createProject(api, token, { projectName: "IsoKeys-A", type: "kms" });
  const key = await api.request("POST", "/api/v1/kms/keys", { token, body: { projectId: keys.id, name: "iso-key-a", description: "IsoKeyDescription-A" } });
  const clientSecrets = await api.request("GET", `/api/v1/auth/universal-auth/identities/${bot.identityId}/client-secrets`, { token });
  const orgMembers = await api.request("GET", `/api/v2/organizations/${world.admin.orgId}/memberships`, { token });
  const orgMembership = orgMembers.body?.users?.find((u: { user: { email: string } }) => u.user.email === member.email)?.id ?? project.id;
  const values: Record<string, string> = {
    projectId: project.id,
    clientSecretId: clientSecrets.body?.clientSecretData?.[0]?.id ?? project.id,
    workspaceId: project.id,
    projectSlug: project.slug,
    workspaceSlug: project.slug,
    orgId: world.admin.orgId,
    organizationId: world.admin.orgId,
    identityId: bot.identityId,
    membershipId: membership.body?.memberships?.[0]?.id ?? project.id,
    roleId: role.body?.role?.id ?? project.id,
    privilegeSlug: "iso-privilege",
    secretName: "ISO_SECRET",
    tagId: tag.body?.tag?.id ?? project.id,
    environment: "dev",
    secretPath: "/",
    path: "/",
    username: member.email,
    proxyId: proxy.body?.proxy?.id ?? project.id,
    serviceId: service.body?.service?.id ?? project.id,
    folderIdOrName: environmentId,
    keyId: key.body?.key?.id ?? project.id,
    keyName: "iso-key-a",
    folderId: folder.body?.folder?.id ?? project.id,
    secretImportId: secretImport.body?.secretImport?.id ?? project.id,
    secretId: secretRow.body?.secret?.id ?? project.id,
    caId: ca.body?.ca?.id ?? project.id,
    certificateId: issued.body?.certificate?.certificateId ?? project.id,
    slug: pki.slug,
  };
  return {
    values,
    ids: [
      ["/api/v2/identity-project-additional-privilege", privilege.body?.privilege?.id ?? project.id],
      ["/api/v1/workspace", environmentId],
      ["/api/v1/folders", values.folderId],
      ["/api/v1/cert-manager/certificate-profiles", profile.body?.certificateProfile?.id ?? project.id],
    ],
    scoped: [["/api/v2/organizations", "membershipId", orgMembership]],
    markers: ["IsoProject-A", "iso-secret-value-A", "iso-bot-a", "IsoRole-A", "IsoTag-A", "IsoProxy-A", "IsoService-A", "iso-member@acme.test", "iso-key-a", "IsoKeyDescription-A", "iso-folder", "IsoPki-A", "IsoCa-A", "iso-profile-a", "iso-cert-a.test"],
  };
}

function requestFor(route: Route, fixture: Fixture) {
  const param = (name: string) =>
    fixture.scoped.find(([prefix, scopedName]) => scopedName === name && route.path.startsWith(prefix))?.[2] ??
    (name === "id" ? (fixture.ids.find(([prefix]) => route.path.startsWith(prefix))?.[1] ?? fixture.values.projectId) : (fixture.values[name] ?? fixture.values.projectId));
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(param(name)));
  const query = new URLSearchParams();
  for (const key of queryKeys(route)) if (fixture.values[key]) query.set(key, fixture.values[key]);
  const body = route.method === "GET" ? undefined : { ...fixture.values, name: "outsider", slug: "outsider-slug", secretValue: "x", roles: [{ role: "admin", isTemporary: false }], permissions: [{ subject: "secrets", action: ["read"] }] };
  return { path: query.size ? `${path}?${query}` : path, body };
}

describe.each(backends)("tenant isolation on %s", (backend) => {
  let api: TestApi;
  let available = true;
  let fixture: Fixture;
  const callers: Record<string, string> = {};
  const tally = { cases: 0, refused403or404: 0, refused400or422: 0, ownScope2xx: 0 };

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    const world = await bootstrap(api);
    fixture = await buildOrganizationA(api, world);
    // organization B: its own admin user and admin identity, who belong nowhere else
    const rival = await api.request("POST", "/api/v2/organizations", { token: world.admin.userToken, body: { name: "Rival B" } });
    const rivalAdmin = await createUser(api, world.admin.userToken, rival.body.organization.id, "boss@rival-b.test", "admin");
    callers["admin of another organization"] = rivalAdmin.token;
    callers["identity of another organization"] = (await createIdentity(api, rivalAdmin.token, rival.body.organization.id, "rival-bot", "admin")).token;
    // same organization, no project membership
    callers["member of the organization outside the project"] = (await createUser(api, world.admin.token, world.admin.orgId, "outsider@acme.test")).token;
  });
  afterAll(async () => {
    if (!available) return;
    console.log(`isolation (${backend}): ${JSON.stringify(tally)}`);
    await api.close();
  });

  const ids = operationIds(operations);
  const scoped = routes.filter((r) => !NOT_TENANT_SCOPED.has(ids.get(r.operation)!));

  it.for(scoped.map((r) => [`${r.method} ${r.path}`, r] as const))("%s gives other tenants nothing", async ([, route], ctx) => {
    if (!available) return ctx.skip();
    for (const [who, token] of Object.entries(callers)) {
      const { path, body } = requestFor(route, fixture);
      const res = await api.request(route.method, path, { token, body });
      tally.cases++;
      const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body ?? "");
      for (const marker of fixture.markers) expect(text.includes(marker), `${who}: ${route.method} ${path} revealed ${marker}`).toBe(false);
      if (res.status < 300) {
        // only answers about the caller's own scope may succeed, and they carry none of A's ids
        for (const id of [fixture.values.projectId, fixture.values.identityId, fixture.values.serviceId, fixture.values.proxyId]) {
          expect(text.includes(id), `${who}: ${route.method} ${path} answered ${res.status} with A's id`).toBe(false);
        }
        tally.ownScope2xx++;
      } else if (res.status === 403 || res.status === 404) tally.refused403or404++;
      else if (res.status === 400 || res.status === 422 || res.status === 401) tally.refused400or422++;
      else throw new Error(`${who}: ${route.method} ${path} answered ${res.status}`);
    }
  });

  it("refuses (403/404) the SPEC endpoints outright", async (ctx) => {
    if (!available) return ctx.skip();
    const token = callers["admin of another organization"];
    const v = fixture.values;
    const refused = async (method: string, path: string, body?: unknown) => {
      const res = await api.request(method, path, { token, body });
      expect([403, 404], `${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
    };
    await refused("GET", `/api/v2/workspace/${v.projectId}/roles`);
    await refused("POST", `/api/v1/workspace/${v.projectId}/memberships/details`, { username: v.username });
    await refused("PATCH", `/api/v1/projects/${v.projectId}/memberships/${v.membershipId}`, { roles: [{ role: "admin", isTemporary: false }] });
    await refused("GET", `/api/v1/additional-privilege/identity?identityId=${v.identityId}&projectSlug=${v.projectSlug}`);
    await refused("GET", `/api/v2/identity-project-additional-privilege?identityId=${v.identityId}&projectId=${v.projectId}`);
    await refused("PATCH", "/api/v4/secrets/batch", { projectId: v.projectId, environment: "dev", secrets: [{ secretKey: "ISO_SECRET", secretValue: "stolen" }] });
    await refused("POST", "/api/v3/secrets/tags/ISO_SECRET", { projectSlug: v.projectSlug, environment: "dev", secretPath: "/", type: "shared", tagSlugs: ["iso-tag"] });
    await refused("GET", `/api/v4/secrets/ISO_SECRET?projectId=${v.projectId}&environment=dev`);
    await refused("PATCH", `/api/v1/proxied-services/${v.serviceId}`, { name: "stolen" });
    await refused("GET", `/api/v1/agent-vault/proxies/${v.proxyId}`);
  });
});
