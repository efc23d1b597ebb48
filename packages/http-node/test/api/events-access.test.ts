import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataOf, itemsOf, openEventStream, type EventStreamClient } from "./events-client.js";
import { startDeployment, type Deployment } from "./nodes.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Losing access ends an open event stream within the access bound (issue 15 principle 12, issue 16,
 * issue 17 "Removing a member ends its access at once"): the stream is re-checked every second of
 * the instance clock, so each test moves the clock by one re-check interval — far short of the old
 * 60 s and of the access caches' 2 s lifetime — and the stream's last frame says why it ended.
 */
const RECHECK_INTERVAL_MS = 1_000;
const register = [{ event: "secret:create", conditions: { secretPath: "/**" } }];

/** The stream's next frame is `event: error` with this status, and then the stream ends. */
async function endsWith(stream: EventStreamClient, statusCode: number): Promise<void> {
  const last = await stream.next();
  expect([last.event, dataOf(last).statusCode]).toEqual(["error", statusCode]);
  await stream.ended;
}

describe.each(backends)("event streams lose access within the bound on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let n = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()), 30_000);

  async function ok(pending: Promise<{ status: number; body: any }>) {
    const res = await pending;
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A project, and a viewer identity in it subscribed to its secret creations. */
  async function watchedProject() {
    const projectId = (await createProject(api, world.admin.token, { projectName: `Watched ${++n}` })).id;
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, `watcher-${n}`, "no-access");
    await ok(api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "viewer" } }));
    const stream = await openEventStream(api.url, bot.token, { projectId, register });
    expect(stream.status).toBe(200);
    return { projectId, bot, stream };
  }

  /** The stream still delivers: a secret written now arrives. */
  async function stillDelivers(stream: EventStreamClient, projectId: string, name: string) {
    await ok(api.request("POST", `/api/v4/secrets/${name}`, { token: world.admin.token, body: { projectId, environment: "dev", secretValue: "v" } }));
    expect(itemsOf(await stream.next())).toEqual([`dev:/:${name}`]);
  }

  maybe("revoking the stream's token ends it with 401", async () => {
    const { projectId, bot, stream } = await watchedProject();
    await stillDelivers(stream, projectId, "BEFORE_REVOCATION");
    await ok(api.request("POST", "/api/v1/auth/token/revoke", { body: { accessToken: bot.token } }));
    api.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 401);
  });

  maybe("removing the identity's project membership ends its stream with 403", async () => {
    const { projectId, bot, stream } = await watchedProject();
    await ok(api.request("DELETE", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { token: world.admin.token }));
    api.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 403);
  });

  maybe("deleting the identity ends its stream with 401 (its tokens are revoked)", async () => {
    const { stream, bot } = await watchedProject();
    await ok(api.request("DELETE", `/api/v1/identities/${bot.identityId}`, { token: world.admin.token }));
    api.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 401);
  });

  maybe("deleting the project ends every stream on it with 404", async () => {
    const { projectId, stream } = await watchedProject();
    await ok(api.request("DELETE", `/api/v1/projects/${projectId}`, { token: world.admin.token }));
    api.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 404);
  });

  maybe("removing a user from the organization ends the user's stream with 404 (the project is no longer theirs to know)", async () => {
    const projectId = (await createProject(api, world.admin.token, { projectName: `Watched ${++n}` })).id;
    const email = `leaver-${n}@acme.test`;
    const user = await createUser(api, world.admin.token, world.admin.orgId, email);
    await ok(api.request("POST", `/api/v2/workspace/${projectId}/memberships`, { token: world.admin.token, body: { usernames: [email], roleSlugs: ["viewer"] } }));
    const stream = await openEventStream(api.url, user.token, { projectId, register });
    expect(stream.status).toBe(200);
    const members = await ok(api.request("GET", `/api/v2/organizations/${world.admin.orgId}/memberships`, { token: world.admin.token }));
    const membership = members.users.find((m: { user: { email: string } }) => m.user.email === email);
    await ok(api.request("DELETE", `/api/v2/organizations/${world.admin.orgId}/memberships/${membership.id}`, { token: world.admin.token }));
    api.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 404);
  });

  maybe("a stream whose access holds carries on across many re-checks", async () => {
    const { projectId, stream } = await watchedProject();
    for (let i = 0; i < 3; i++) {
      api.clock.advance(RECHECK_INTERVAL_MS);
      await stillDelivers(stream, projectId, `STILL_HERE_${i}`);
    }
    stream.close();
  });
});

/**
 * Across nodes: the change is made through node A, the stream is open on node B, whose access
 * caches still hold the actor's access (read less than their 2 s lifetime ago). B's re-check reads
 * storage again, so one re-check interval of the shared clock is enough.
 */
describe("event streams lose access made on another node (PostgreSQL)", () => {
  let deployment: Deployment | undefined;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable("postgres");
    if (available) deployment = await startDeployment("postgres", 2);
  });
  afterAll(async () => {
    await deployment?.close();
  });

  it("a membership removed on node A ends the stream on node B", async (ctx) => {
    if (!available || !deployment) return ctx.skip();
    const [a, b] = deployment.nodes;
    const setup = await a.request("POST", "/api/v1/admin/bootstrap", { body: { email: "ops@example.com", password: "a long password", organization: "Nodes" } });
    const token = setup.body.identity.credentials.token as string;
    const orgId = setup.body.organization.id as string;
    const projectId = (await a.request("POST", "/api/v1/projects", { token, body: { projectName: "Shared" } })).body.project.id as string;
    const bot = await a.request("POST", "/api/v1/identities", { token, body: { name: "watcher", organizationId: orgId } });
    const identityId = bot.body.identity.id as string;
    const ua = await a.request("POST", `/api/v1/auth/universal-auth/identities/${identityId}`, { token, body: {} });
    const secret = await a.request("POST", `/api/v1/auth/universal-auth/identities/${identityId}/client-secrets`, { token, body: {} });
    const login = await a.request("POST", "/api/v1/auth/universal-auth/login", { body: { clientId: ua.body.identityUniversalAuth.clientId, clientSecret: secret.body.clientSecret } });
    await a.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${identityId}`, { token, body: { role: "viewer" } });
    const stream = await openEventStream(b.url, login.body.accessToken, { projectId, register });
    expect(stream.status).toBe(200);
    // Node B now holds the identity's access in its caches.
    expect((await b.request("GET", `/api/v4/secrets?projectId=${projectId}&environment=dev`, { token: login.body.accessToken })).status).toBe(200);
    expect((await a.request("DELETE", `/api/v2/workspace/${projectId}/identity-memberships/${identityId}`, { token })).status).toBe(200);
    deployment.clock.advance(RECHECK_INTERVAL_MS);
    await endsWith(stream, 403);
  }, 30_000);
});
