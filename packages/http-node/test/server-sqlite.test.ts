import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { RootKeyMismatchError } from "@strongroom/core";
import { createStrongroomServer } from "@strongroom/http-node";
import { send } from "./helpers/http.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-server-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const portOf = (url: string) => Number(new URL(url).port);

describe("createStrongroomServer on SQLite", () => {
  it("creates its data directory, root key and database, serves, and closes", async () => {
    const dataDir = join(tempDir(), "nested", "data");
    const running = await createStrongroomServer({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, { logger: () => {} });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const reply = await send(portOf(running.url), "GET", "/api/status");
      expect(reply.status).toBe(200);
      expect(statSync(join(dataDir, "root.key")).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, "strongroom.db")).isFile()).toBe(true);
    } finally {
      await running.close();
    }
  });

  it("keeps its data directory 0700 and the database with its -wal and -shm 0600, new or existing (issue 15, principle 12)", async () => {
    const modeOf = (path: string) => statSync(path).mode & 0o777;
    const fresh = join(tempDir(), "fresh");
    const existing = tempDir();
    chmodSync(existing, 0o755);
    for (const dataDir of [fresh, existing]) {
      const running = await createStrongroomServer({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }, { logger: () => {} });
      try {
        expect(modeOf(dataDir)).toBe(0o700);
        for (const file of ["strongroom.db", "strongroom.db-wal", "strongroom.db-shm", "root.key"]) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
      } finally {
        await running.close();
      }
    }
    // A database left readable by others (an older version, a copy) is made private at start.
    chmodSync(join(fresh, "strongroom.db"), 0o644);
    const again = await createStrongroomServer({ DATA_DIR: fresh, PORT: "0", HOST: "127.0.0.1" }, { logger: () => {} });
    try {
      expect(modeOf(join(fresh, "strongroom.db"))).toBe(0o600);
    } finally {
      await again.close();
    }
  });

  it("refuses to start with a root key other than the database's", async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" };
    await (await createStrongroomServer(env, { logger: () => {} })).close();
    const otherKey = Buffer.alloc(32, 1).toString("base64");
    await expect(createStrongroomServer({ ...env, STRONGROOM_ROOT_KEY: otherKey }, { logger: () => {} })).rejects.toBeInstanceOf(RootKeyMismatchError);
  });

  it("runs as the strongroom command: prints its address, serves, and exits 0 on SIGTERM", async () => {
    const cli = fileURLToPath(new URL("../src/server/cli.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", cli], {
      env: { ...process.env, DATA_DIR: tempDir(), PORT: "0", HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]);
      });
      child.on("exit", () => reject(new Error(`exited before listening: ${stdout}`)));
    });
    expect((await send(portOf(url), "GET", "/api/status")).json).toEqual({ status: "ok" });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const requestLine = stdout.split("\n").find((line) => line.includes('"route":"/api/status"'));
    expect(JSON.parse(requestLine!)).toMatchObject({ method: "GET", status: 200 });
  });
});
