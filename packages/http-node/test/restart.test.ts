import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { call, spawnServer } from "./helpers/spawn-server.js";

const dataDir = mkdtempSync(join(tmpdir(), "strongroom-restart-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("finds everything again after a restart on the same DATA_DIR", async () => {
  const first = await spawnServer({ DATA_DIR: dataDir });
  const setup = await call(first.url, "POST", "/api/v1/admin/bootstrap", {
    body: { email: "keeper@example.com", password: "a long password", organization: "Keep" },
  });
  const token = setup.body.identity.credentials.token;
  const created = await call(first.url, "POST", "/api/v1/projects", { token, body: { projectName: "Durable", slug: "durable-app" } });
  expect(created.status).toBe(200);
  expect(await first.stop()).toBe(0);

  // same directory, same generated root key: the token, the project and the login still work
  const second = await spawnServer({ DATA_DIR: dataDir });
  try {
    const roles = await call(second.url, "GET", `/api/v2/workspace/${created.body.project.id}/roles`, { token });
    expect(roles.status).toBe(200);
    const login = await call(second.url, "POST", "/api/v1/auth/login", { body: { email: "keeper@example.com", password: "a long password" } });
    expect(login.status).toBe(200);
    const again = await call(second.url, "POST", "/api/v1/projects", { token, body: { projectName: "Durable", slug: "durable-app" } });
    expect(again.status).toBe(400);
  } finally {
    await second.stop();
  }
});
