import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createUser, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** The unmodified Infisical MCP server (pinned in package.json), as an AI agent's client starts it. */
const MCP_SERVER = createRequire(import.meta.url).resolve("@infisical/mcp");

const EVERY_TOOL = [
  "create-secret",
  "delete-secret",
  "update-secret",
  "list-secrets",
  "get-secret",
  "create-project",
  "create-environment",
  "create-folder",
  "invite-members-to-project",
  "list-projects",
];

/**
 * `@infisical/mcp` driven over stdio by `@modelcontextprotocol/sdk`'s client against a Strongroom
 * server: every tool it offers succeeds — neither `isError` nor an error told as plain text — and
 * list-projects lists the project create-project made.
 */
describe.each(backends)("the Infisical MCP server on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;
  let client: Client;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    const agent = await createIdentity(api, world.admin.token, world.admin.orgId, "mcp-agent", "member");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_SERVER],
      env: {
        INFISICAL_HOST_URL: api.url,
        INFISICAL_AUTH_METHOD: "universal-auth",
        INFISICAL_UNIVERSAL_AUTH_CLIENT_ID: agent.clientId,
        INFISICAL_UNIVERSAL_AUTH_CLIENT_SECRET: agent.clientSecret,
      },
      stderr: "ignore",
    });
    client = new Client({ name: "strongroom-test", version: "1.0.0" });
    await client.connect(transport);
  });
  afterAll(async () => {
    if (!available) return;
    await client?.close();
    await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /** Calls a tool and returns its text, failing on any kind of error the server reports. */
  async function call(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
    expect(result.isError, `${name}: ${text}`).toBeFalsy();
    expect(text, name).not.toMatch(/^Error|error retrieving|failed/i);
    return text;
  }

  /** The JSON a tool appends to its message ("Project created successfully: {…}"). */
  const jsonOf = (text: string) => JSON.parse(text.slice(text.indexOf(":") + 1));

  maybe("offers its tools, and every one of them succeeds", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...EVERY_TOOL].sort());
    const used = new Set<string>();
    const run = async (name: string, args: Record<string, unknown>) => {
      used.add(name);
      return call(name, args);
    };

    const project = jsonOf(await run("create-project", { projectName: "Agent's project", type: "secret-manager", description: "made by an agent" }));
    expect(project).toMatchObject({ name: "Agent's project", type: "secret-manager" });
    const projectId = project.id as string;

    const environment = jsonOf(await run("create-environment", { projectId, name: "QA", slug: "qa" }));
    expect(environment).toMatchObject({ slug: "qa", position: 4 });
    const folder = jsonOf(await run("create-folder", { projectId, environment: "dev", name: "app" }));
    expect(folder).toMatchObject({ name: "app" });

    const where = { projectId, environmentSlug: "dev" };
    expect(jsonOf(await run("create-secret", { ...where, secretName: "DB_URL", secretValue: "postgres://one" }))).toMatchObject({ secretKey: "DB_URL", secretValue: "postgres://one" });
    expect(jsonOf(await run("create-secret", { ...where, secretPath: "/app", secretName: "NESTED", secretValue: "n" }))).toMatchObject({ secretKey: "NESTED" });
    expect(jsonOf(await run("get-secret", { ...where, secretName: "DB_URL" }))).toMatchObject({ secretKey: "DB_URL", secretValue: "postgres://one" });
    expect(jsonOf(await run("update-secret", { ...where, secretName: "DB_URL", secretValue: "postgres://two" }))).toMatchObject({ secretValue: "postgres://two" });
    const listed = JSON.parse(await run("list-secrets", where));
    expect(listed.secrets).toEqual([{ secretKey: "DB_URL", secretValue: "postgres://two" }]);
    expect(await run("delete-secret", { ...where, secretName: "DB_URL" })).toContain("DB_URL");
    expect(JSON.parse(await call("list-secrets", where)).secrets).toEqual([]);

    const teammate = await createUser(api, world.admin.token, world.admin.orgId, "teammate@acme.test");
    const invited = jsonOf(await run("invite-members-to-project", { projectId, emails: [teammate.email], roleSlugs: ["viewer"] }));
    expect(invited).toMatchObject([{ userId: teammate.userId, projectId }]);

    const projects = jsonOf(await run("list-projects", {}));
    expect(projects).toEqual([expect.objectContaining({ id: projectId, name: "Agent's project", slug: project.slug, hasDeleteProtection: false })]);
    expect(projects[0].environments.map((e: { slug: string }) => e.slug)).toEqual(["dev", "staging", "prod", "qa"]);
    expect(jsonOf(await call("list-projects", { type: "secret-manager" }))).toHaveLength(1);
    expect(jsonOf(await call("list-projects", { type: "kms" }))).toEqual([]);

    expect([...used].sort()).toEqual([...EVERY_TOOL].sort());
  });
});
