import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bufferedLogger, LINGER_MS } from "../src/log-writer.js";
import { requestLine, type RequestLogEntry } from "../src/logger.js";

const dir = mkdtempSync(join(tmpdir(), "strongroom-log-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("buffered request log", () => {
  it("writes every line, in order, once flushed", () => {
    const file = join(dir, "ordered.log");
    const log = bufferedLogger(file);
    for (let i = 0; i < 1000; i++) log(JSON.stringify({ i }));
    log.flush();
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).i)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it("writes a lone line within the linger time, without a flush", async () => {
    const file = join(dir, "lone.log");
    const log = bufferedLogger(file);
    log("alone");
    expect(readFileSync(file, "utf8")).toBe("");
    await new Promise((resolve) => setTimeout(resolve, LINGER_MS * 3));
    expect(readFileSync(file, "utf8")).toBe("alone\n");
  });

  it("loses no line when the process exits right after logging", () => {
    const file = join(dir, "exit.log");
    const script = `
      const { bufferedLogger } = await import(${JSON.stringify(new URL("../src/log-writer.ts", import.meta.url).pathname)});
      const log = bufferedLogger(${JSON.stringify(file)});
      for (let i = 0; i < 500; i++) log("line " + i);
      process.exit(0);`;
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(500);
  });

  it("builds the same JSON as the entry, escaping what needs it", () => {
    const entry: RequestLogEntry = { level: "info", time: new Date(0).toISOString(), reqId: "req-1", method: "GET", route: '/a/"b"\\{c}', status: 200, durationMs: 1.25 };
    expect(JSON.parse(requestLine(entry))).toEqual(entry);
    expect(requestLine(entry)).toBe(JSON.stringify(entry));
    expect(JSON.parse(requestLine({ ...entry, route: null }))).toEqual({ ...entry, route: null });
  });
});
