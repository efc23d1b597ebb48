import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createFileSink, entryHash, GENESIS_HASH, type AuditEntry } from "@strongroom/core/audit";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBuilt, runCli, tempDir } from "./helpers/cli.js";

/** `count` entries of one chain as the log streams them, each hashed over its predecessor. */
function chainOf(count: number, chain: string): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const fields: Omit<AuditEntry, "hash"> = {
      id: `${chain}-${seq}`,
      chain,
      seq,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
      orgId: "o1",
      projectId: chain.startsWith("project:") ? chain.slice(8) : null,
      environment: "prod",
      secretPath: "/",
      actor: { type: "user", metadata: { id: "u1", name: "ops@example.com" } },
      event: { type: "get-secret", metadata: { secretKey: "DB_URL", secretVersion: 1 } },
      outcome: "success",
      ipAddress: "10.0.0.7",
      userAgent: "curl/8",
      count: 1,
      salt: `salt-${seq}`,
      prevHash,
    };
    const entry = { ...fields, hash: entryHash(fields) };
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
}

/**
 * `strongroom audit verify --file` over a copy written by the real file sink (two chains
 * interleaved, rotated): an untouched copy verifies; an edit, a removal, a swap or a cut tail is
 * named by its entry and the command exits 5.
 */
describe("strongroom audit verify --file", { timeout: 120_000 }, () => {
  const dir = tempDir("audit-copy");
  const live = join(dir, "audit.log");
  const project = chainOf(30, "project:p1");
  const org = chainOf(10, "org:o1");
  let files: string[];

  beforeAll(async () => {
    requireBuilt();
    const sink = await createFileSink({ path: live, maxBytes: 8 * 1024, keep: 10 });
    for (let i = 0; i < project.length; i++) await sink.write([project[i], ...(i < org.length ? [org[i]] : [])]);
    await sink.close();
    files = [live, ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => `${live}.${n}`).filter((f) => { try { return readFileSync(f).length > 0; } catch { return false; } })];
    expect(files.length).toBeGreaterThan(2);
  });

  /** A copy of the streamed files with `change` applied to their lines (oldest first), in a fresh directory. */
  const tampered = (change: (lines: string[]) => string[]): string => {
    const lines = [...files].reverse().flatMap((f) => readFileSync(f, "utf8").split("\n").filter(Boolean));
    const file = join(tempDir("audit-tampered"), "audit.log");
    writeFileSync(file, `${change(lines).join("\n")}\n`);
    return file;
  };
  const lineOf = (lines: string[], id: string) => lines.findIndex((l) => JSON.parse(l).id === id);

  it("verifies an untouched copy, rotations given in any order", async () => {
    const run = await runCli(["audit", "verify", "--file", ...[...files].sort()]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ok        org:o1: 10 entries fit");
    expect(run.stdout).toContain(`ok        project:p1: 30 entries fit, head 30 ${project[29].hash.slice(0, 16)}`);
  });

  it.each([
    {
      what: "an edited entry",
      change: (lines: string[]) => lines.map((l) => (JSON.parse(l).id === "project:p1-12" ? l.replace("ops@example.com", "someone@else.test") : l)),
      expected: /TAMPERED  project:p1: entry 12 \(project:p1-12\): its content no longer matches its hash/,
    },
    {
      what: "a removed entry",
      change: (lines: string[]) => lines.filter((l) => JSON.parse(l).id !== "project:p1-7"),
      expected: /TAMPERED  project:p1: entry 7: it is not where it belongs/,
    },
    {
      what: "two entries swapped",
      change: (lines: string[]) => {
        const a = lineOf(lines, "project:p1-20");
        const b = lineOf(lines, "project:p1-21");
        const copy = [...lines];
        [copy[a], copy[b]] = [copy[b], copy[a]];
        return copy;
      },
      // The walk meets 21 where 20 belongs: the entry out of place is named, as a reordering.
      expected: /TAMPERED  project:p1: entry 21 \(project:p1-21\): it is out of place: entries were reordered/,
    },
    {
      what: "a line cut in half",
      change: (lines: string[]) => lines.map((l) => (JSON.parse(l).id === "org:o1-3" ? l.slice(0, 40) : l)),
      expected: /not a JSON line/,
    },
  ])("names $what and exits 5", async ({ change, expected }) => {
    const run = await runCli(["audit", "verify", "--file", tampered(change)]);
    expect(run.stdout + run.stderr).toMatch(expected);
    expect(run.code).toBe(5);
  });

  it("reports a tail cut off since a head was noted", async () => {
    const cut = tampered((lines) => lines.filter((l) => JSON.parse(l).seq <= 25 || JSON.parse(l).chain !== "project:p1"));
    const run = await runCli(["audit", "verify", "--file", cut, "--project", "p1", "--head", `30:${project[29].hash}`]);
    expect(run.stdout).toMatch(/TAMPERED  project:p1: entry 26: the log ends before a head obtained earlier/);
    expect(run.code).toBe(5);
  });

  it("refuses a malformed head (exit 2)", async () => {
    const run = await runCli(["audit", "verify", "--file", live, "--project", "p1", "--head", "30:nothex"]);
    expect(run.stderr).toMatch(/--head is <seq>:<sha256 hex>/);
    expect(run.code).toBe(2);
  });
});
