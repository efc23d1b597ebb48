import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MARIADB_SERVER, mariadbServer, withMysqlLogin } from "@strongroom/dynamic-secrets/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createIdentity, createProject, expectError, startApi, type TestApi } from "@strongroom/http-node/testing";
import { startAgentProxy, type AgentProxy } from "../src/index.js";
import { agentDispatcher, agentRequest } from "./helpers/agent-client.js";
import { startRelay, type Relay } from "./helpers/relay.js";
import { startHttpsUpstream, upstreamCertificates, type TestUpstream, type UpstreamCa } from "./helpers/upstream.js";
import { ok, openSessionFor, registeredProxy } from "./helpers/world.js";

/**
 * A proxied service whose credentials come from a MariaDB dynamic secret (MariaDB checks
 * passwords, so a user and a password from different leases would not log in): the upstream sees
 * the user and password of the one lease the server holds for the proxy and service — credentials
 * that log in — the lease is renewed while in use, and once the service goes away the lease is
 * revoked and the upstream sees nothing of it again.
 */
const maria = await mariadbServer();

describe.skipIf(!maria.available)("agent proxy with dynamic-secret credentials", () => {
  let api: TestApi;
  let relay: Relay;
  let certificates: UpstreamCa;
  let upstream: TestUpstream;
  let proxy: AgentProxy;
  let admin: string;
  let project: { id: string; slug: string };
  let serviceId: string;
  let session: { token: string };
  const dirs: string[] = [];
  const where = () => ({ projectSlug: project.slug, environmentSlug: "dev", path: "/" });

  const send = async () => {
    const dispatcher = agentDispatcher({ proxyUrl: proxy.url, proxyAuthorization: `Bearer ${session.token}`, proxyCa: proxy.caCertificate });
    try {
      await proxy.refresh(); // every request asks the server again, instead of reusing the last decision
      return await agentRequest(dispatcher, `${upstream.origin}/query`);
    } finally {
      await dispatcher.close();
    }
  };
  const lastSeen = () => upstream.received.at(-1)!.headers;
  const login = (user: string, password: string) =>
    withMysqlLogin({ host: "127.0.0.1", port: MARIADB_SERVER.port, DB_USERNAME: user, DB_PASSWORD: password }, "SELECT CURRENT_USER() AS me");
  const heldLeases = async () => (await ok(api.request("GET", `/api/v1/dynamic-secrets/agent-db/leases?projectSlug=${project.slug}&environmentSlug=dev`, { token: admin }))).leases;

  beforeAll(async () => {
    api = await startApi();
    relay = await startRelay(api.url);
    certificates = await upstreamCertificates();
    upstream = await startHttpsUpstream(certificates);
    admin = (await bootstrap(api)).admin.token;
    project = await createProject(api, admin, { projectName: "Agent Dyn" });
    await ok(
      api.request("POST", "/api/v1/dynamic-secrets", {
        token: admin,
        body: {
          ...where(),
          name: "agent-db",
          defaultTTL: "10m",
          maxTTL: "1h",
          provider: { type: "sql-database", inputs: { client: "mysql2", ...MARIADB_SERVER } },
        },
      }),
    );
    const service = await ok(
      api.request("POST", "/api/v1/proxied-services", {
        token: admin,
        body: {
          projectId: project.id,
          environment: "dev",
          name: "db-api",
          hostPattern: `127.0.0.1:${upstream.port}`,
          credentials: [
            { headerName: "X-Db-User", dynamicSecretName: "agent-db", dynamicSecretField: "DB_USERNAME" },
            { headerName: "X-Db-Password", dynamicSecretName: "agent-db", dynamicSecretField: "DB_PASSWORD" },
          ],
        },
      }),
    );
    serviceId = service.service.id;
    const bot = await createIdentity(api, admin, (await ok(api.request("GET", `/api/v1/projects/${project.id}`, { token: admin }))).project.orgId, "db-agent");
    const bundle = await ok(
      api.request("POST", "/api/v1/agent-vault/access-bundles", {
        token: admin,
        body: { projectId: project.id, name: "db-bundle", serviceIds: [serviceId], grants: [{ type: "identity", id: bot.identityId }] },
      }),
    );
    const { enrollmentToken } = await registeredProxy(api, admin, { name: "db-proxy" });
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-"));
    dirs.push(dataDir);
    proxy = await startAgentProxy({ server: relay.url, enrollmentToken, dataDir, listen: "127.0.0.1:0", allowPrivateTargets: true, upstreamCa: certificates.certificatePem, logger: () => undefined });
    session = await openSessionFor(api, bot, bundle.bundle.id);
  });

  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    await relay?.close();
    await api?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a dynamic credential to whoever may not lease the dynamic secret, or for a field it does not have", async () => {
    const body = (credentials: Record<string, unknown>[]) => ({ projectId: project.id, environment: "dev", name: `svc-${Math.random().toString(36).slice(2, 8)}`, hostPattern: "api.example.test", credentials });
    const noField = await api.request("POST", "/api/v1/proxied-services", { token: admin, body: body([{ headerName: "X-P", dynamicSecretName: "agent-db", dynamicSecretField: "PASSWORD" }]) });
    expect(expectError(noField, 400, "BadRequest").message).toBe("credentials[0]: dynamic secret 'agent-db' has no field 'PASSWORD' (it has DB_USERNAME, DB_PASSWORD) in dev:/");
    await ok(
      api.request("POST", `/api/v1/projects/${project.id}/roles`, {
        token: admin,
        body: { slug: "service-maker", name: "Service maker", permissions: [{ subject: "proxied-services", action: ["read", "create"] }, { subject: "dynamic-secrets", action: ["read"] }] },
      }),
    );
    const maker = await createIdentity(api, admin, (await ok(api.request("GET", `/api/v1/projects/${project.id}`, { token: admin }))).project.orgId, "service-maker");
    await ok(api.request("POST", `/api/v2/workspace/${project.id}/identity-memberships/${maker.identityId}`, { token: admin, body: { role: "service-maker" } }));
    const denied = await api.request("POST", "/api/v1/proxied-services", { token: maker.token, body: body([{ headerName: "X-P", dynamicSecretName: "agent-db", dynamicSecretField: "DB_PASSWORD" }]) });
    expect(expectError(denied, 403, "PermissionDenied").message).toContain("not allowed to lease dynamic secret 'agent-db'");
  });

  it("injects the leased user and password: the upstream sees credentials that log in to PostgreSQL", async () => {
    const res = await send();
    expect(res.status).toBe(200);
    const user = lastSeen()["x-db-user"] as string;
    const password = lastSeen()["x-db-password"] as string;
    expect(user).toMatch(/^sr[a-z0-9]{30}$/);
    expect(password).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(await login(user, password)).toEqual([{ me: `${user}@%` }]);
    // One lease, held for the proxy; its credentials are in no answer.
    const leases = await heldLeases();
    expect(leases).toHaveLength(1);
    expect(leases[0].externalEntityId).toBe(user);
    expect(JSON.stringify(leases)).not.toContain(password);
  });

  it("keeps using the same lease, and renews it once it runs short", async () => {
    const first = lastSeen()["x-db-password"];
    await send();
    expect(lastSeen()["x-db-password"]).toBe(first);
    api.clock.advance(6 * 60_000);
    await send();
    expect(lastSeen()["x-db-password"]).toBe(first);
    const [lease] = await heldLeases();
    expect(lease.version).toBe(2);
    expect(new Date(lease.expiresAt).getTime() - new Date(lease.createdAt).getTime()).toBe(20 * 60_000);
  });

  it("takes a new lease when the held one was revoked; the old credentials no longer log in", async () => {
    const user = lastSeen()["x-db-user"] as string;
    const password = lastSeen()["x-db-password"] as string;
    const [lease] = await heldLeases();
    await ok(api.request("DELETE", `/api/v1/dynamic-secrets/leases/${lease.id}`, { token: admin, body: where() }));
    await expect(login(user, password)).rejects.toThrow(/Access denied/);
    await send();
    expect(lastSeen()["x-db-user"]).not.toBe(user);
    expect(await login(lastSeen()["x-db-user"] as string, lastSeen()["x-db-password"] as string)).toHaveLength(1);
  });

  it("revokes the held lease once the service goes away; the upstream then sees nothing of it", async () => {
    const user = lastSeen()["x-db-user"] as string;
    const password = lastSeen()["x-db-password"] as string;
    await ok(api.request("DELETE", `/api/v1/proxied-services/${serviceId}`, { token: admin }));
    api.clock.advance(60_000);
    expect(await api.strongroom.scheduler.runDue()).toContain("dynamic-secret-lease-expiry");
    expect(await heldLeases()).toEqual([]);
    await expect(login(user, password)).rejects.toThrow(/Access denied/);

    const seen = upstream.received.length;
    const res = await send();
    expect(res.status).toBe(200); // the any-host policy passes the request through, unbrokered
    expect(upstream.received.length).toBe(seen + 1);
    expect(lastSeen()["x-db-user"]).toBeUndefined();
    expect(lastSeen()["x-db-password"]).toBeUndefined();
    expect(JSON.stringify(upstream.received.at(-1))).not.toContain(password);
  });
});
