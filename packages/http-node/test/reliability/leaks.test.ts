import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { withPostgres, type TestDatabase } from "@strongroom/storage-postgres/testing";
import { call, spawnServer, type ServerProcess } from "../helpers/spawn-server.js";

/**
 * A workload that handles every kind of secret material (passwords, access tokens, client
 * secrets, secret values and comments, enrollment tokens, session tokens), then a scan of the
 * server's output and of everything it stored: none of it may appear in plaintext.
 */
async function workload(server: ServerProcess): Promise<string[]> {
  const known: string[] = [];
  const password = "Leak-Check-Password-4711";
  known.push(password);
  const setup = await call(server.url, "POST", "/api/v1/admin/bootstrap", { body: { email: "leak@example.com", password, organization: "Leaky" } });
  const token = setup.body.identity.credentials.token as string;
  known.push(token);
  const login = await call(server.url, "POST", "/api/v1/auth/login", { body: { email: "leak@example.com", password } });
  known.push(login.body.accessToken);
  const wrongLogin = await call(server.url, "POST", "/api/v1/auth/login", { body: { email: "leak@example.com", password: "Wrong-Password-Guess-99" } });
  expect(wrongLogin.status).toBe(401);
  known.push("Wrong-Password-Guess-99");

  const project = (await call(server.url, "POST", "/api/v1/projects", { token, body: { projectName: "Leaky", slug: "leaky-app" } })).body.project;
  const value = "sk_live_LEAKCANARY_0123456789abcdef";
  const comment = "canary-comment-9f8e7d6c5b4a";
  known.push(value, comment);
  const created = await call(server.url, "POST", "/api/v4/secrets/STRIPE_KEY", { token, body: { projectId: project.id, environment: "dev", secretValue: value, secretComment: comment } });
  expect(created.status).toBe(200);
  const batchValue = "batch-canary-value-5a5a5a5a";
  known.push(batchValue);
  await call(server.url, "POST", "/api/v4/secrets/batch", { token, body: { projectId: project.id, environment: "dev", secrets: [{ secretKey: "BATCHED", secretValue: batchValue }] } });
  const read = await call(server.url, "GET", `/api/v4/secrets/STRIPE_KEY?projectId=${project.id}&environment=dev`, { token });
  expect(read.body.secret.secretValue).toBe(value);

  const identity = (await call(server.url, "POST", "/api/v1/identities", { token, body: { name: "leak-bot", organizationId: setup.body.organization.id } })).body.identity;
  const ua = (await call(server.url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}`, { token, body: {} })).body.identityUniversalAuth;
  const clientSecret = (await call(server.url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}/client-secrets`, { token, body: {} })).body.clientSecret;
  known.push(clientSecret);
  const machineLogin = await call(server.url, "POST", "/api/v1/auth/universal-auth/login", { body: { clientId: ua.clientId, clientSecret } });
  known.push(machineLogin.body.accessToken);

  const proxy = await call(server.url, "POST", "/api/v1/agent-vault/proxies", { token, body: { name: "leak-proxy" } });
  if (proxy.status === 200) known.push(proxy.body.token);
  // requests that fail still must not echo what they carried
  await call(server.url, "GET", "/api/v4/secrets?projectId=nope", { token });
  await call(server.url, "POST", "/api/v1/projects", { token: `${token}x`, body: {} });
  return known;
}

function expectNowhere(haystack: Buffer | string, needles: string[], where: string) {
  const text = typeof haystack === "string" ? haystack : haystack.toString("latin1");
  for (const needle of needles) {
    expect(text.includes(needle), `${needle.slice(0, 12)}… found in ${where}`).toBe(false);
  }
}

describe("secrets never leak", () => {
  const dirs: string[] = [];
  let db: TestDatabase | undefined;
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    if (db?.available) await db.drop();
  });

  it("on SQLite: not in the logs, not in the database files", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-leak-"));
    dirs.push(dataDir);
    const server = await spawnServer({ DATA_DIR: dataDir });
    const known = await workload(server);
    // read the files while the server still runs (WAL not yet folded in) and after it stops
    const live = readdirSync(dataDir).filter((f) => f.startsWith("strongroom.db")).map((f) => readFileSync(join(dataDir, f)));
    expect(await server.stop()).toBe(0);
    const logs = server.output();
    expect(logs).toContain('"route":"/api/v4/secrets/{secretName}"');
    expectNowhere(logs, known, "the server output");
    for (const bytes of live) expectNowhere(bytes, known, "the live database files");
    const files = readdirSync(dataDir).filter((f) => f.startsWith("strongroom.db"));
    for (const file of files) expectNowhere(readFileSync(join(dataDir, file)), known, file);
    // the scan does see stored data: the (non-secret) e-mail address is there in clear
    expect(files.some((file) => readFileSync(join(dataDir, file)).toString("latin1").includes("leak@example.com"))).toBe(true);
  }, 120_000);

  it("on PostgreSQL: not in the logs, not in any column of any table", async (ctx) => {
    db = await withPostgres();
    if (!db.available) return ctx.skip();
    const server = await spawnServer({ DATABASE_URL: db.url, STRONGROOM_ROOT_KEY: generateRootKey() });
    const known = await workload(server);
    await server.stop();
    expectNowhere(server.output(), known, "the server output");
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const tables = await client.query<{ tablename: string }>("select tablename from pg_tables where schemaname = 'public'");
      let everything = "";
      for (const { tablename } of tables.rows) {
        const rows = await client.query(`select t::text as row from "${tablename}" t`);
        const text = rows.rows.map((r) => r.row).join("\n");
        expectNowhere(text, known, `table ${tablename}`);
        everything += text;
      }
      expect(everything).toContain("leak@example.com");
    } finally {
      await client.end();
    }
  }, 120_000);
});
