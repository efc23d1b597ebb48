import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileSink } from "../../../src/audit/sinks/file-sink.js";
import { verifyChain } from "../../../src/audit/verify.js";
import type { AuditEntry } from "../../../src/audit/schemas.js";
import { sampleChain } from "./entries.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "strongroom-audit-file-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Seqs 10 to 59: every line has the same length, so the rotation arithmetic below is exact.
const chain = sampleChain(50, "project:p1", 10);
/** Entry n (from 0) of the sample. */
const entry = (n: number) => chain[n];
const linesOf = async (file: string) => (await readFile(file, "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as AuditEntry);
const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe("the JSON-lines file sink", () => {
  it("appends one entry per line to a 0600 file", async () => {
    const path = join(dir, "audit.log");
    const sink = await createFileSink({ path });
    for (let n = 0; n < 3; n++) sink.write([entry(n)]);
    expect(await sink.flush()).toBe(true);
    sink.write([entry(3)]);
    await sink.close();
    const copy = await linesOf(path);
    expect(copy.map((e) => e.id)).toEqual(["entry-0010", "entry-0011", "entry-0012", "entry-0013"]);
    // The copy is the entries as the log holds them: it verifies on its own from its predecessor.
    expect(verifyChain("project:p1", copy, { anchor: { seq: 9, hash: copy[0].prevHash } })).toMatchObject({ ok: true, checked: 4 });
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
    const kept: AuditEntry[] = [];
    for (const file of files) {
      expect((await stat(file)).size).toBeLessThanOrEqual(maxBytes);
      expect(await modeOf(file)).toBe(0o600);
      kept.push(...(await linesOf(file)));
    }
    expect(kept.map((e) => e.id)).toEqual(Array.from({ length: 20 }, (_, i) => entry(20 + i).id));
    // What the rotated files hold still verifies, from the entry before the first one kept.
    expect(verifyChain("project:p1", kept, { anchor: { seq: entry(19).seq, hash: entry(19).hash } })).toMatchObject({ ok: true, checked: 20 });
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
    expect((await linesOf(`${path}.1`)).map((e) => e.id)).toEqual(["entry-0010", "entry-0011"]);
    expect((await linesOf(path)).map((e) => e.id)).toEqual(["entry-0012"]);
  });

  it("refuses to start on a path it cannot write", async () => {
    await expect(createFileSink({ path: join(dir, "missing", "audit.log") })).rejects.toThrow(/ENOENT/);
  });
});
