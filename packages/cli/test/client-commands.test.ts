import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, machineIdentity, setUpInstance, type Instance } from "./helpers/api.js";
import { CLI, requireBuilt, runCli, startCli, startServer, tempDir, type ServerProcess } from "./helpers/cli.js";

/** The built `strongroom` command as child processes against a real server (SQLite, loopback). */
let server: ServerProcess;
let instance: Instance;
/** Logged in as the project's `member` identity (universal auth) in its own config directory. */
let member: Record<string, string>;

beforeAll(async () => {
  requireBuilt();
  server = await startServer();
  instance = await setUpInstance(server.url);
  member = { STRONGROOM_CONFIG_DIR: tempDir("config"), STRONGROOM_URL: server.url, STRONGROOM_PROJECT_ID: instance.projectId };
  const login = await runCli(["login", "--client-id", instance.clientId], { env: { ...member, STRONGROOM_CLIENT_SECRET: instance.clientSecret } });
  expect(login.stderr).toContain("logged in");
  expect(login.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("strongroom login", { timeout: 120_000 }, () => {
  it("keeps the session readable by its owner only, without the client secret", () => {
    const dir = member.STRONGROOM_CONFIG_DIR;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const file = join(dir, "session.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved).toMatchObject({ server: server.url, method: "universal-auth" });
    expect(saved.token).toMatch(/^srt_/);
    expect(readFileSync(file, "utf8")).not.toContain(instance.clientSecret);
    expect(Date.parse(saved.expiresAt)).toBeGreaterThan(Date.now());
  });

  it("refuses a wrong client secret with exit code 3 and saves nothing", async () => {
    const config = tempDir("config");
    const result = await runCli(["login", "--server", server.url, "--client-id", instance.clientId, "--client-secret", "0".repeat(64)], {
      env: { STRONGROOM_CONFIG_DIR: config },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/refused/);
    const list = await runCli(["secrets", "list", "--project", instance.projectId], { env: { STRONGROOM_CONFIG_DIR: config, STRONGROOM_URL: server.url } });
    expect(list.code).toBe(3);
    expect(list.stderr).toContain("strongroom login");
  });

  it("takes an access token, checked against the server", async () => {
    const config = tempDir("config");
    const bad = await runCli(["login", "--server", server.url], { env: { STRONGROOM_CONFIG_DIR: config, STRONGROOM_TOKEN: "srt_not-a-token" } });
    expect(bad.code).toBe(3);
    const good = await runCli(["login", "--server", server.url], { env: { STRONGROOM_CONFIG_DIR: config, STRONGROOM_TOKEN: instance.admin } });
    expect(good.code).toBe(0);
    const list = await runCli(["secrets", "list", "--plain", "--project", instance.projectId], { env: { STRONGROOM_CONFIG_DIR: config } });
    expect(list.code).toBe(0);
  });

  it("--plain prints the token instead of saving a session", async () => {
    const config = tempDir("config");
    const result = await runCli(["login", "--plain", "--server", server.url, "--client-id", instance.clientId, "--client-secret", instance.clientSecret], {
      env: { STRONGROOM_CONFIG_DIR: config },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^srt_[\w-]+$/);
    expect(() => statSync(join(config, "session.json"))).toThrow();
  });
});

describe("strongroom secrets", { timeout: 120_000 }, () => {
  it("sets, lists, reads and deletes secrets; a missing one is exit code 4", async () => {
    const set = await runCli(["secrets", "set", "--env", "staging", "API_KEY=abc=123", "REGION=eu-west-1"], { env: member });
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/API_KEY\s*│\s*1/);
    // A value from standard input never appears in the process list.
    const fromStdin = await runCli(["secrets", "set", "--env", "staging", "--plain", "PRIVATE_KEY"], { env: member, input: "line 1\nline 2\n" });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toBe("");

    const list = await runCli(["secrets", "list", "--env", "staging", "--plain"], { env: member });
    expect(list.stdout).toBe("API_KEY\nPRIVATE_KEY\nREGION\n");
    const table = await runCli(["secrets", "list", "--env", "staging"], { env: member });
    expect(table.stdout).toMatch(/NAME\s*│\s*VALUE/);
    expect(table.stdout).toContain("eu-west-1");

    const get = await runCli(["secrets", "get", "--env", "staging", "--plain", "API_KEY", "PRIVATE_KEY"], { env: member });
    expect(get.stdout).toBe("abc=123\nline 1\nline 2\n");

    const update = await runCli(["secrets", "set", "--env", "staging", "REGION=us-east-2"], { env: member });
    expect(update.stdout).toMatch(/REGION\s*│\s*2/);

    const del = await runCli(["secrets", "delete", "--env", "staging", "REGION"], { env: member });
    expect(del.code).toBe(0);
    const gone = await runCli(["secrets", "get", "--env", "staging", "--plain", "REGION"], { env: member });
    expect(gone.code).toBe(4);
    expect(gone.stdout).toBe("");
    expect(gone.stderr).toMatch(/not found/i);
    const again = await runCli(["secrets", "delete", "--env", "staging", "REGION", "API_KEY"], { env: member });
    expect(again.code).toBe(4);
    // All or none: API_KEY is still there.
    expect((await runCli(["secrets", "get", "--env", "staging", "--plain", "API_KEY"], { env: member })).stdout).toBe("abc=123\n");
  });

  it("answers a usage error with exit code 2", async () => {
    const noProject = await runCli(["secrets", "list"], { env: { ...member, STRONGROOM_PROJECT_ID: undefined } });
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toContain("--project");
    expect((await runCli(["secrets", "frobnicate"], { env: member })).code).toBe(2);
  });
});

describe("strongroom export", { timeout: 120_000 }, () => {
  const tricky = `it's "quoted" $HOME \\n and\na second line`;

  beforeAll(async () => {
    const result = await runCli(["secrets", "set", "--env", "prod", "--plain", "DB_URL=postgres://db/prod", "TRICKY"], { env: member, input: `${tricky}\n` });
    expect(result.code).toBe(0);
  });

  it("writes dotenv as the Infisical CLI does", async () => {
    const result = await runCli(["export", "--env", "prod", "--format", "dotenv"], { env: member });
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe("DB_URL='postgres://db/prod'");
  });

  it("writes dotenv-export that a shell reads back exactly", async () => {
    const exported = await runCli(["export", "--env", "prod", "--format", "dotenv-export"], { env: member });
    const shell = spawnSync("sh", ["-c", `${exported.stdout}\nprintf '%s' "$TRICKY"`], { encoding: "utf8" });
    expect(shell.stdout).toBe(tricky);
  });

  it("writes JSON as an array of Infisical's secret objects", async () => {
    const result = await runCli(["export", "--env", "prod", "--format", "json"], { env: member });
    const parsed = JSON.parse(result.stdout);
    expect(parsed.map((s: { key: string }) => s.key)).toEqual(["DB_URL", "TRICKY"]);
    expect(parsed[1]).toMatchObject({ key: "TRICKY", value: tricky, workspace: instance.projectId, type: "shared", secretPath: "/", tags: [] });
    expect(Object.keys(parsed[0]).sort()).toEqual(["Etag", "_id", "comment", "key", "secretPath", "skipMultilineEncoding", "tags", "type", "value", "workspace"]);
  });

  it("writes YAML as a map of names to values", async () => {
    const result = await runCli(["export", "--env", "prod", "--format", "yaml"], { env: member });
    expect(parseYaml(result.stdout)).toEqual({ DB_URL: "postgres://db/prod", TRICKY: tricky });
  });

  it("refuses an unknown format", async () => {
    const result = await runCli(["export", "--env", "prod", "--format", "toml"], { env: member });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/dotenv, dotenv-export, json, yaml/);
  });
});

describe("strongroom run", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await runCli(["secrets", "set", "--env", "dev", "--plain", "GREETING=hello from strongroom"], { env: member });
  });

  it("starts the command with the secrets in its environment and exits with its code", async () => {
    const result = await runCli(["run", "--", "sh", "-c", 'printf "%s|%s" "$GREETING" "$KEEP_ME"; exit 7'], { env: { ...member, KEEP_ME: "kept" } });
    expect(result.stdout).toBe("hello from strongroom|kept");
    expect(result.code).toBe(7);
  });

  it("passes the command's own options through untouched", async () => {
    const result = await runCli(["run", "--", "sh", "-c", 'echo "$@"', "sh", "--watch", "--env", "x"], { env: member });
    expect(result.stdout.trim()).toBe("--watch --env x");
  });

  it("reports a command killed by a signal as 128 + its number, and a missing one as 127", async () => {
    expect((await runCli(["run", "--", "sh", "-c", "kill -9 $$"], { env: member })).code).toBe(137);
    expect((await runCli(["run", "--", "no-such-command-strongroom"], { env: member })).code).toBe(127);
  });

  it("forwards a signal to the command and exits with the command's answer to it", async () => {
    const run = startCli(["run", "--", "node", "-e", "process.on('SIGTERM', () => { console.log('child got SIGTERM'); process.exit(42) }); console.log('ready'); setInterval(() => {}, 1000)"], { env: member });
    await run.waitFor(/ready/);
    run.child.kill("SIGTERM");
    expect((await run.exited).code).toBe(42);
    expect(run.stdout()).toContain("child got SIGTERM");
  });

  const watchScript = "echo \"start $GREETING\"; trap 'exit 0' TERM; while true; do sleep 0.1; done";

  it("--watch restarts the command when a secret changes (live events)", async () => {
    const run = startCli(["run", "--watch", "--", "sh", "-c", watchScript], { env: member });
    try {
      await run.waitFor(/start hello from strongroom\n/);
      await runCli(["secrets", "set", "--plain", "GREETING=changed live"], { env: member });
      await run.waitFor(/start changed live\n/);
      expect(run.stderr()).toContain("secrets changed, restarting");
      expect(run.stderr()).not.toContain("live events unavailable");
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });

  it("--watch falls back to polling with the list's ETag when the identity may not subscribe", async () => {
    await api(server.url, "POST", `/api/v1/projects/${instance.projectId}/roles`, {
      token: instance.admin,
      body: { slug: "secret-reader", name: "Secret reader", permissions: [{ subject: "secrets", action: ["read"] }] },
    });
    const reader = await machineIdentity(server.url, instance.admin, instance.orgId, instance.projectId, "secret-reader");
    const readerEnv = { STRONGROOM_CONFIG_DIR: tempDir("config"), STRONGROOM_URL: server.url, STRONGROOM_PROJECT_ID: instance.projectId };
    expect((await runCli(["login", "--client-id", reader.clientId, "--client-secret", reader.clientSecret], { env: readerEnv })).code).toBe(0);

    const run = startCli(["run", "--watch", "--watch-interval", "0.5", "--", "sh", "-c", watchScript], { env: readerEnv });
    try {
      await run.waitFor(/start changed live\n/);
      await runCli(["secrets", "set", "--plain", "GREETING=changed while polling"], { env: member });
      await run.waitFor(/start changed while polling\n/);
      expect(run.stderr()).toContain("live events unavailable");
      // Unchanged checks (304s) restart nothing.
      expect(run.stdout().match(/^start /gm)).toHaveLength(2);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });
});

it("the command under test is the committed bin file", () => {
  expect(readFileSync(CLI, "utf8")).toMatch(/dist\/main\.js/);
});
