import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateRootKey } from "@strongroom/core";
import { createStrongroomServer, silentLogger } from "@strongroom/http-node";
import { call } from "../helpers/spawn-server.js";

const PAGE = 4096;

/** The server refuses to start on bad ground (SQLite), saying why and what to do. */
describe("start-up checks", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-startup-"));
    dirs.push(dir);
    return dir;
  };
  const start = (dir: string) => createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir }, { logger: silentLogger });

  it("refuses an empty (0-byte) database beside an existing root key, and leaves both as they were", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "root.key"), `${generateRootKey()}\n`, { mode: 0o600 });
    writeFileSync(join(dir, "strongroom.db"), "");
    await expect(start(dir)).rejects.toThrow(/strongroom\.db is empty \(0 bytes\) but .*root\.key exists.*Restore it from a backup/);
    expect(statSync(join(dir, "strongroom.db")).size).toBe(0);
  });

  it("refuses a damaged database, naming what SQLite found", async () => {
    const dir = dataDir();
    const running = await start(dir);
    const setup = await call(running.url, "POST", "/api/v1/admin/bootstrap", {
      body: { email: "damaged@example.com", password: "a long password", organization: "Damaged" },
    });
    const token = setup.body.identity.credentials.token as string;
    const project = (await call(running.url, "POST", "/api/v1/projects", { token, body: { projectName: "Damaged", slug: "damaged-test" } })).body.project;
    const secrets = Array.from({ length: 1_000 }, (_, i) => ({ secretKey: `K${i}`, secretValue: `value-${i}`.repeat(10) }));
    expect((await call(running.url, "POST", "/api/v4/secrets/batch", { token, body: { projectId: project.id, environment: "dev", secrets } })).status).toBe(200);
    await running.close();

    // The healthy file starts again...
    await (await start(dir)).close();
    // ...and, with a few pages in its middle overwritten, does not.
    const file = join(dir, "strongroom.db");
    const pages = statSync(file).size / PAGE;
    expect(pages).toBeGreaterThan(20);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(3 * PAGE, 0x5a), 0, 3 * PAGE, Math.floor(pages / 2) * PAGE);
    closeSync(fd);
    await expect(start(dir)).rejects.toThrow(/strongroom\.db is damaged \(SQLite quick_check: .+\)\. Restore it from a backup/);
  });

  it("refuses a file that is not a database at all", async () => {
    const dir = dataDir();
    writeFileSync(join(dir, "strongroom.db"), Buffer.alloc(8 * PAGE, 0x41));
    await expect(start(dir)).rejects.toThrow(/strongroom\.db is damaged \(SQLite quick_check: SQLITE_NOTADB/);
  });
});
