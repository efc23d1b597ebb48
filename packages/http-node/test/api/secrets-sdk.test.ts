import { InfisicalSDK } from "@infisical/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** The official Infisical Node SDK, unmodified, against a Strongroom server. */
describe.each(backends)("official Infisical Node SDK on %s", (backend) => {
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

  it("logs in with universal auth, then creates, gets, lists, updates and deletes a secret", async (ctx) => {
    if (!available) return ctx.skip();
    const project = await createProject(api, world.admin.token, { projectName: "SDK" });
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, "sdk-bot", "member");
    const joined = await api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${bot.identityId}`, {
      token: world.admin.token,
      body: { role: "member" },
    });
    expect(joined.status).toBe(200);

    const client = new InfisicalSDK({ siteUrl: api.url });
    await client.auth().universalAuth.login({ clientId: bot.clientId, clientSecret: bot.clientSecret });
    const secrets = client.secrets();
    const where = { projectId: project.id, environment: "dev" };

    const created = await secrets.createSecret("DATABASE_URL", { ...where, secretValue: "postgres://app@db/main", secretComment: "primary" });
    expect(created.secret).toMatchObject({ secretKey: "DATABASE_URL", secretValue: "postgres://app@db/main", version: 1 });

    const got = await secrets.getSecret({ ...where, secretName: "DATABASE_URL" });
    expect(got).toMatchObject({ secretKey: "DATABASE_URL", secretValue: "postgres://app@db/main", secretComment: "primary", type: "shared" });

    await secrets.createSecret("REDIS_URL", { ...where, secretValue: "redis://cache" });
    const listed = await secrets.listSecrets({ ...where, secretPath: "/" });
    expect(listed.secrets.map((s) => [s.secretKey, s.secretValue])).toEqual([
      ["DATABASE_URL", "postgres://app@db/main"],
      ["REDIS_URL", "redis://cache"],
    ]);
    const withImports = await secrets.listSecretsWithImports({ ...where });
    expect(withImports).toHaveLength(2);
    // The SDK asks for secret references to be expanded by default.
    await secrets.createSecret("CACHE_URL", { ...where, secretValue: "${REDIS_URL}/0" });
    expect((await secrets.getSecret({ ...where, secretName: "CACHE_URL" })).secretValue).toBe("redis://cache/0");
    await secrets.deleteSecret("CACHE_URL", where);

    const updated = await secrets.updateSecret("DATABASE_URL", { ...where, secretValue: "postgres://app@db2/main" });
    expect(updated.secret).toMatchObject({ secretValue: "postgres://app@db2/main", version: 2 });
    expect((await secrets.getSecret({ ...where, secretName: "DATABASE_URL" })).secretValue).toBe("postgres://app@db2/main");

    const deleted = await secrets.deleteSecret("DATABASE_URL", where);
    expect(deleted.secret.secretKey).toBe("DATABASE_URL");
    await expect(secrets.getSecret({ ...where, secretName: "DATABASE_URL" })).rejects.toThrow(/404/);
    expect((await secrets.listSecrets(where)).secrets.map((s) => s.secretKey)).toEqual(["REDIS_URL"]);

    // Folders and environments through the SDK's own clients.
    const env = await client.environments().create({ projectId: project.id, name: "Preview", slug: "preview" });
    expect(env).toMatchObject({ slug: "preview" });
    const folder = await client.folders().create({ projectId: project.id, environment: "preview", name: "web", path: "/" });
    expect(folder).toMatchObject({ name: "web" });
    const folders = await client.folders().listFolders({ projectId: project.id, environment: "preview", path: "/" });
    expect(folders.map((f) => f.name)).toEqual(["web"]);
  });
});
