import { describe, expect, it } from "vitest";
import { requireBuilt, runCli, startCli, tempDir } from "./helpers/cli.js";

describe("strongroom serve", { timeout: 120_000 }, () => {
  it("is the default command, and a flag wins over its environment variable", async () => {
    requireBuilt();
    const dataDir = tempDir("data");
    // PORT in the environment is taken by nothing here: the flag says 0 (any free port).
    const server = startCli(["--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], { env: { PORT: "1" } });
    try {
      const [, url] = await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      expect(url).not.toMatch(/:1$/);
      expect((await fetch(`${url}/api/status`)).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
      expect((await server.exited).code).toBe(0);
    }
  });

  it("names the variable behind a bad flag and exits 1", async () => {
    const result = await runCli(["serve", "--port", "not-a-port", "--data-dir", tempDir("data")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT must be a port number, got "not-a-port"');
  });
});
