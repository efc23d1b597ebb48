import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey, ManualClock, type Strongroom } from "@strongroom/core";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";
import { dynamicSecretProviders } from "@strongroom/dynamic-secrets";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { createHandler, type HandlerOptions } from "../handler.js";
import { Router } from "../router.js";
import { routes } from "../routes/index.js";
import { withPostgres } from "@strongroom/storage-postgres/testing";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApi {
  url: string;
  strongroom: Strongroom;
  clock: ManualClock;
  logs: string[];
  request<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export type Backend = "sqlite" | "postgres";

/** Backends the API suites run on: SQLite always, PostgreSQL when a server answers (always in CI). */
export const backends: Backend[] = ["sqlite", "postgres"];

async function openStorage(backend: Backend): Promise<{ storage: Storage; cleanup: () => Promise<void> }> {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-api-"));
    const storage = await createSqliteStorage({ filename: join(dir, "strongroom.db") });
    return { storage, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const pg = await withPostgres();
  if (!pg.available) throw new Error("PostgreSQL unavailable");
  const storage = await createPostgresStorage({ connectionString: pg.url });
  return { storage, cleanup: () => pg.drop() };
}

const router = new Router(routes);

/**
 * Response conformance: every successful JSON answer must satisfy the operation's declared
 * output schema, so the OpenAPI document (built from the same schemas) cannot drift from the code.
 */
function assertConforms(strongroom: Strongroom, method: string, path: string, status: number, body: unknown): void {
  if (status >= 300 || body === undefined) return;
  const found = router.lookup(method, path.split("?")[0]);
  if (found.kind !== "match" || found.match.route.kind === "sse") return;
  const operation = found.match.route.operation;
  if (!operation) return;
  const result = operation.output.safeParse(body);
  if (!result.success) {
    throw new Error(`${method} ${path} answered outside its schema (${operation.name}): ${JSON.stringify(result.error.issues.slice(0, 5))}`);
  }
}

/** A real server on 127.0.0.1 with a manual clock, on the given backend; `handler` adds createHandler options. */
export async function startApi(backend: Backend = "sqlite", clockStart = new Date(), handler: Omit<HandlerOptions, "logger"> = {}): Promise<TestApi> {
  const { storage, cleanup } = await openStorage(backend);
  const clock = new ManualClock(clockStart);
  const strongroom = await createStrongroom({
    storage,
    rootKey: generateRootKey(),
    clock,
    dynamicSecretProviders,
    config: { allowPrivateTargets: true, allowPrivateDatabases: true },
  });
  const logs: string[] = [];
  const server: Server = createServer(createHandler(strongroom, { ...handler, logger: (line: string) => logs.push(line) }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    strongroom,
    clock,
    logs,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers["content-type"] = "application/json";
      }
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      if (res.headers.get("content-type")?.includes("application/json")) assertConforms(strongroom, method, path, res.status, parsed);
      return { status: res.status, headers: res.headers, body: parsed as any };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await strongroom.close();
      await cleanup();
    },
  };
}

/** Whether PostgreSQL suites should run here (always in CI; skipped locally without a server). */
export async function backendAvailable(backend: Backend): Promise<boolean> {
  if (backend === "sqlite") return true;
  const pg = await withPostgres();
  if (pg.available) await pg.drop();
  return pg.available;
}

export interface World {
  admin: { token: string; identityId: string; orgId: string; email: string; password: string; userToken: string };
}

/** Bootstraps the instance and logs the first user in. */
export async function bootstrap(api: TestApi, organization = "Acme"): Promise<World> {
  const email = "owner@acme.test";
  const password = "correct horse battery";
  const res = await api.request("POST", "/api/v1/admin/bootstrap", { body: { email, password, organization } });
  if (res.status !== 200) throw new Error(`bootstrap failed: ${JSON.stringify(res.body)}`);
  const login = await api.request("POST", "/api/v1/auth/login", { body: { email, password } });
  return {
    admin: {
      token: res.body.identity.credentials.token,
      identityId: res.body.identity.id,
      orgId: res.body.organization.id,
      email,
      password,
      userToken: login.body.accessToken,
    },
  };
}

/** Creates a user in an organization and returns its login token. */
export async function createUser(api: TestApi, adminToken: string, orgId: string, email: string, role = "member") {
  const password = "a long enough password";
  const res = await api.request("POST", `/api/v1/organizations/${orgId}/users`, { token: adminToken, body: { email, password, role } });
  if (res.status !== 200) throw new Error(`createUser failed: ${JSON.stringify(res.body)}`);
  const login = await api.request("POST", "/api/v1/auth/login", { body: { email, password } });
  return { userId: res.body.user.id as string, token: login.body.accessToken as string, email };
}

/** Creates a machine identity with universal auth and logs it in. */
export async function createIdentity(api: TestApi, adminToken: string, orgId: string, name = "ci-bot", role = "member") {
  const created = await api.request("POST", "/api/v1/identities", { token: adminToken, body: { name, organizationId: orgId, role } });
  const identityId = created.body.identity.id as string;
  const ua = await api.request("POST", `/api/v1/auth/universal-auth/identities/${identityId}`, { token: adminToken, body: {} });
  const secret = await api.request("POST", `/api/v1/auth/universal-auth/identities/${identityId}/client-secrets`, { token: adminToken, body: {} });
  const login = await api.request("POST", "/api/v1/auth/universal-auth/login", {
    body: { clientId: ua.body.identityUniversalAuth.clientId, clientSecret: secret.body.clientSecret },
  });
  return { identityId, clientId: ua.body.identityUniversalAuth.clientId as string, clientSecret: secret.body.clientSecret as string, token: login.body.accessToken as string };
}

export async function createProject(api: TestApi, token: string, body: Record<string, unknown> = {}) {
  const res = await api.request("POST", "/api/v1/projects", { token, body: { projectName: "Payments", ...body } });
  if (res.status !== 200) throw new Error(`createProject failed: ${JSON.stringify(res.body)}`);
  return res.body.project as { id: string; slug: string; orgId: string; environments: { slug: string; id: string }[] };
}

/** Asserts SPEC.md's error body shape and returns it. */
export function expectError(res: ApiResponse, status: number, error?: string) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  const body = res.body;
  if (body.statusCode !== status || typeof body.reqId !== "string" || typeof body.error !== "string") {
    throw new Error(`malformed error body: ${JSON.stringify(body)}`);
  }
  if (error && body.error !== error) throw new Error(`expected error ${error}, got ${body.error}`);
  return body;
}
