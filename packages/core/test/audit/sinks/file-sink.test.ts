import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileSink } from "../../../src/audit/sinks/file-sink.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "strongroom-audit-file-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const entry = (n: number) => ({ id: `entry-${String(n).padStart(4, "0")}`, eventType: "get-secret", padding: "x".repeat(40) });
const linesOf = async (file: string) => (await readFile(file, "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id: string });
const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe("the JSON-lines file sink", () => {
  it("appends one entry per line to a 0600 file", async () => {
    const path = join(dir, "audit.log");
    const sink = await createFileSink({ path });
    for (let n = 0; n < 3; n++) sink.write([entry(n)]);
    expect(await sink.flush()).toBe(true);
    sink.write([entry(3)]);
    await sink.close();
    expect((await linesOf(path)).map((e) => e.id)).toEqual(["entry-0000", "entry-0001", "entry-0002", "entry-0003"]);
    expect(await modeOf(path)).toBe(0o600);
  });

  it("rotates by size, keeps the newest files and loses no line among them", async () => {
    const path = join(dir, "audit.log");
    const lineBytes = JSON.stringify(entry(0)).length + 1;
    const maxBytes = lineBytes * 5;
    const sink = await createFileSink({ path, maxBytes, keep: 3, batchSize: 7 });
    // 40 entries of 5 per file: the live file and 3 rotated ones hold the newest 20.
    for (let n = 0; n < 40; n++) {
      sink.write([entry(n)]);
      if (n % 9 === 0) await sink.flush();
    }
    await sink.close();

    expect((await readdir(dir)).sort()).toEqual(["audit.log", "audit.log.1", "audit.log.2", "audit.log.3"]);
    const files = [`${path}.3`, `${path}.2`, `${path}.1`, path];
    const kept: string[] = [];
    for (const file of files) {
      expect((await stat(file)).size).toBeLessThanOrEqual(maxBytes);
      expect(await modeOf(file)).toBe(0o600);
      kept.push(...(await linesOf(file)).map((e) => e.id));
    }
    expect(kept).toEqual(Array.from({ length: 20 }, (_, i) => entry(20 + i).id));
  });

  it("takes over an existing file: appends, rotates it when full, narrows its mode", async () => {
    const path = join(dir, "audit.log");
    await writeFile(path, `${JSON.stringify(entry(0))}\n`, { mode: 0o644 });
    const lineBytes = JSON.stringify(entry(0)).length + 1;
    const sink = await createFileSink({ path, maxBytes: lineBytes * 2, keep: 1 });
    expect(await modeOf(path)).toBe(0o600);
    sink.write([entry(1)]);
    sink.write([entry(2)]);
    await sink.close();
    expect((await linesOf(`${path}.1`)).map((e) => e.id)).toEqual(["entry-0000", "entry-0001"]);
    expect((await linesOf(path)).map((e) => e.id)).toEqual(["entry-0002"]);
  });

  it("refuses to start on a path it cannot write", async () => {
    await expect(createFileSink({ path: join(dir, "missing", "audit.log") })).rejects.toThrow(/ENOENT/);
  });
});
