import { registerProxy } from "@strongroom/http-node/testing";
import { bootstrap, createIdentity, createProject, type ApiResponse, type TestApi } from "@strongroom/http-node/testing";

/**
 * What the proxy suites need on the server: an organization, a project with secrets, proxied
 * services, one access bundle granted to a machine identity (the agent's principal), and
 * registered proxies.
 */
export interface ServiceSpec {
  hostPattern: string;
  credentials: Record<string, unknown>[];
}

export interface World<K extends string> {
  admin: string;
  orgId: string;
  /** The first user's token: it may create organizations. */
  ownerToken: string;
  projectId: string;
  bot: { identityId: string; token: string };
  services: Record<K, { id: string }>;
  bundleId: string;
}

export async function ok(res: Promise<ApiResponse>) {
  const done = await res;
  if (done.status !== 200) throw new Error(`${done.status}: ${JSON.stringify(done.body)}`);
  return done.body;
}

export async function seedWorld<K extends string>(api: TestApi, secrets: Record<string, string>, services: Record<K, ServiceSpec>): Promise<World<K>> {
  const world = await bootstrap(api);
  const admin = world.admin.token;
  const project = await createProject(api, admin, { projectName: "Agent Proxy" });
  for (const [key, value] of Object.entries(secrets)) {
    await ok(api.request("POST", `/api/v4/secrets/${key}`, { token: admin, body: { projectId: project.id, environment: "dev", secretValue: value } }));
  }
  const created = {} as Record<K, { id: string }>;
  for (const [name, spec] of Object.entries(services) as [K, ServiceSpec][]) {
    const body = { projectId: project.id, environment: "dev", secretPath: "/", name, ...spec };
    created[name] = (await ok(api.request("POST", "/api/v1/proxied-services", { token: admin, body }))).service;
  }
  const bot = await createIdentity(api, admin, world.admin.orgId, "coding-agent");
  const bundle = await ok(
    api.request("POST", "/api/v1/agent-vault/access-bundles", {
      token: admin,
      body: { projectId: project.id, name: "agent-bundle", serviceIds: Object.values<{ id: string }>(created).map((s) => s.id), grants: [{ type: "identity", id: bot.identityId }] },
    }),
  );
  return { admin, orgId: world.admin.orgId, ownerToken: world.admin.userToken, projectId: project.id, bot, services: created, bundleId: bundle.bundle.id };
}

export async function openSession(api: TestApi, world: World<string>): Promise<{ id: string; token: string }> {
  const body = await ok(api.request("POST", "/api/v1/agent-vault/sessions", { token: world.bot.token, body: { bundleId: world.bundleId } }));
  return { id: body.session.id, token: body.token };
}

/** A registered, not yet enrolled proxy: its id and one-time enrollment token. */
export async function registeredProxy(api: TestApi, admin: string, body: Record<string, unknown> = {}) {
  const registered = await registerProxy(api, admin, body);
  return { id: registered.id, enrollmentToken: registered.token };
}

/** Another agent principal (a machine identity) with a bundle of its own over `serviceIds`. */
export async function addAgent(api: TestApi, world: World<string>, name: string, serviceIds: string[]) {
  const bot = await createIdentity(api, world.admin, world.orgId, name);
  const bundle = await ok(
    api.request("POST", "/api/v1/agent-vault/access-bundles", {
      token: world.admin,
      body: { projectId: world.projectId, name: `${name}-bundle`, serviceIds, grants: [{ type: "identity", id: bot.identityId }] },
    }),
  );
  return { bot, bundleId: bundle.bundle.id as string };
}

/** A session of `bot` on `bundleId`. */
export async function openSessionFor(api: TestApi, bot: { token: string }, bundleId: string): Promise<{ id: string; token: string }> {
  const body = await ok(api.request("POST", "/api/v1/agent-vault/sessions", { token: bot.token, body: { bundleId } }));
  return { id: body.session.id, token: body.token };
}
