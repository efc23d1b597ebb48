import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("runs the embedded example as a program", async () => {
  const script = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const { stdout } = await run(process.execPath, ["--conditions=source", "--import", "tsx", script], { timeout: 60_000 });
  expect(stdout).toContain("project payments with environments dev, staging, prod");
  expect(stdout).toMatch(/deployer sees roles: admin, member, viewer, no-access/);
});
