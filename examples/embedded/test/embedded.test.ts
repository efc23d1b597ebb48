import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "strongroom-embedded-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const runExample = () => {
  const script = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const env = { ...process.env, DATA_DIR: dataDir, STRONGROOM_ROOT_KEY: "" };
  return run(process.execPath, ["--conditions=source", "--import", "tsx", script], { timeout: 60_000, env });
};

it("runs the embedded example as a program, and again on the same data with the root key it kept", async () => {
  const first = await runExample();
  expect(first.stdout).toContain("project payments with environments dev, staging, prod");
  expect(first.stdout).toMatch(/deployer sees roles: admin, member, viewer, no-access/);
  expect(first.stdout).toContain("stored STRIPE_KEY=sk_live_example");
  expect(statSync(join(dataDir, "root.key")).mode & 0o777).toBe(0o600);

  const second = await runExample();
  expect(second.stdout).toContain("read back STRIPE_KEY=sk_live_example");
}, 120_000);
