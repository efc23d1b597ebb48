import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A fresh directory for this test file's database files, removed when the file's tests finish. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-sqlite-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
