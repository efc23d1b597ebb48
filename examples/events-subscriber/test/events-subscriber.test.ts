import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("prints the events it subscribed to, and no others", async () => {
  const script = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const { stdout } = await run(process.execPath, ["--conditions=source", "--import", "tsx", script], { timeout: 60_000 });
  expect(stdout.trim().split("\n")).toEqual([
    '#1 secret:create [{"environment":"dev","secretPath":"/","secretKey":"DATABASE_URL"}]',
    '#2 secret:update [{"environment":"dev","secretPath":"/","secretKey":"DATABASE_URL"}]',
    '#3 secret:create [{"environment":"prod","secretPath":"/","secretKey":"API_KEY"}]',
    '#4 secret:delete [{"environment":"prod","secretPath":"/","secretKey":"API_KEY"}]',
    "subscription closed",
  ]);
});
