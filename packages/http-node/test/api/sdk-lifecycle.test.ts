import { InfisicalSDK } from "@infisical/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * The official Infisical Node SDK (v5, unmodified) through a whole lifecycle: an identity created
 * without a role works in the project it is added to (login, renew, secrets, environments,
 * folders) and is refused project creation; an organization `member` identity creates a project
 * and invites users by usernames and by e-mails.
 */
describe.each(backends)("official Infisical Node SDK lifecycle on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /** A machine identity made over HTTP without a `role`, with universal auth and one client secret. */
  async function roleless(name: string) {
    const created = await api.request("POST", "/api/v1/identities", { token: world.admin.token, body: { name, organizationId: world.admin.orgId } });
    expect(created.body.identity.role).toBe("no-access");
    const id = created.body.identity.id as string;
    const ua = await api.request("POST", `/api/v1/auth/universal-auth/identities/${id}`, { token: world.admin.token, body: {} });
    const secret = await api.request("POST", `/api/v1/auth/universal-auth/identities/${id}/client-secrets`, { token: world.admin.token, body: {} });
    return { identityId: id, clientId: ua.body.identityUniversalAuth.clientId as string, clientSecret: secret.body.clientSecret as string };
  }

  maybe("a role-less identity logs in, renews, works in its project and is refused project creation", async () => {
    const project = await createProject(api, world.admin.token, { projectName: "SDK lifecycle" });
    const bot = await roleless("sdk-roleless");
    await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "member" } });

    const loggedIn = await new InfisicalSDK({ siteUrl: api.url }).auth().universalAuth.login({ clientId: bot.clientId, clientSecret: bot.clientSecret });
    const firstToken = loggedIn.auth().getAccessToken();
    api.clock.advance(60 * 60 * 1000);
    const client = await loggedIn.auth().universalAuth.renew();
    expect(client.auth().getAccessToken()).toBe(firstToken);

    const secrets = client.secrets();
    const where = { projectId: project.id, environment: "dev" };
    const created = await secrets.createSecret("API_KEY", { ...where, secretValue: "k-1" });
    expect(created.secret).toMatchObject({ secretKey: "API_KEY", secretValue: "k-1" });
    expect((await secrets.getSecret({ ...where, secretName: "API_KEY" })).secretValue).toBe("k-1");
    await secrets.updateSecret("API_KEY", { ...where, secretValue: "k-2" });
    expect((await secrets.listSecrets(where)).secrets.map((s) => [s.secretKey, s.secretValue])).toEqual([["API_KEY", "k-2"]]);
    await secrets.deleteSecret("API_KEY", where);
    expect((await secrets.listSecrets(where)).secrets).toEqual([]);

    const env = await client.environments().create({ projectId: project.id, name: "Preview", slug: "preview" });
    expect(env).toMatchObject({ slug: "preview", position: 4, projectId: project.id });
    const folder = await client.folders().create({ projectId: project.id, environment: "preview", name: "web", path: "/" });
    expect(folder).toMatchObject({ name: "web" });
    expect((await client.folders().listFolders({ projectId: project.id, environment: "preview", path: "/" })).map((f) => f.name)).toEqual(["web"]);

    await expect(client.projects().create({ projectName: "Not allowed", type: "secret-manager" })).rejects.toThrow(/StatusCode=403/);
  });

  maybe("an organization member identity creates a project and invites users by usernames and by e-mails", async () => {
    const builder = await createIdentity(api, world.admin.token, world.admin.orgId, "sdk-builder", "member");
    const ann = await createUser(api, world.admin.token, world.admin.orgId, "ann.sdk@acme.test");
    const bob = await createUser(api, world.admin.token, world.admin.orgId, "bob.sdk@acme.test");
    const client = await new InfisicalSDK({ siteUrl: api.url }).auth().universalAuth.login({ clientId: builder.clientId, clientSecret: builder.clientSecret });

    const project = await client.projects().create({ projectName: "Built with the SDK", type: "secret-manager", projectDescription: "via SDK" });
    expect(project).toMatchObject({ name: "Built with the SDK", description: "via SDK", type: "secret-manager" });

    const byName = await client.projects().inviteMembers({ projectId: project.id, usernames: [ann.email] });
    expect(byName).toMatchObject([{ userId: ann.userId, projectId: project.id }]);
    const byEmail = await client.projects().inviteMembers({ projectId: project.id, emails: [bob.email], roleSlugs: ["viewer"] });
    expect(byEmail).toMatchObject([{ userId: bob.userId, projectId: project.id }]);

    // The invited users are in, with the roles asked for.
    const members = await api.request("GET", `/api/v1/projects/${project.id}/memberships`, { token: builder.token });
    const roles = Object.fromEntries(members.body.memberships.map((m: { user: { email: string }; roles: { role: string }[] }) => [m.user.email, m.roles.map((r) => r.role)]));
    expect(roles).toMatchObject({ [ann.email]: ["member"], [bob.email]: ["viewer"] });
    expect((await api.request("GET", `/api/v1/projects/${project.id}`, { token: bob.token })).status).toBe(200);
  });
});
