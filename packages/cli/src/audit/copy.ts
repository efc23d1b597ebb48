/** A copy of the audit log streamed by the file sink: JSON lines across the live file and its rotations. */
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import { auditEntrySchema, type AuditEntry } from "@strongroom/core/audit";
import { CliError, EXIT } from "../exit-codes.js";

/**
 * Oldest first: `audit.log.5` … `audit.log.1`, then `audit.log` (the file sink's rotation), other
 * names in the order given. A path given twice is read once.
 */
export function copyOrder(paths: readonly string[]): string[] {
  const age = (path: string) => {
    const match = /\.(\d+)$/.exec(basename(path));
    return match ? Number(match[1]) : 0;
  };
  return [...new Set(paths)].map((path, i) => ({ path, i, age: age(path) })).sort((a, b) => b.age - a.age || a.i - b.i).map((p) => p.path);
}

/**
 * Each chain's entries in the order the copy holds them. The sink delivers at least once, so an
 * entry seen again with the same id and hash is a re-delivery and skipped; anything else that
 * repeats stays, for the verifier to judge.
 */
export async function readCopy(paths: readonly string[]): Promise<Map<string, AuditEntry[]>> {
  const chains = new Map<string, AuditEntry[]>();
  const seen = new Set<string>();
  for (const path of copyOrder(paths)) {
    let number = 0;
    const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
    try {
      for await (const line of lines) {
        number += 1;
        if (line.trim() === "") continue;
        const entry = parseLine(line, `${path}:${number}`);
        const key = `${entry.id}\n${entry.hash}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const list = chains.get(entry.chain) ?? [];
        list.push(entry);
        chains.set(entry.chain, list);
      }
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
    }
  }
  return chains;
}

function parseLine(line: string, where: string): AuditEntry {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new CliError(`${where}: not a JSON line (the copy was altered or cut mid-line)`, EXIT.tampered);
  }
  const parsed = auditEntrySchema.safeParse(json);
  if (!parsed.success) throw new CliError(`${where}: not an audit entry (${parsed.error.issues[0]?.path.join(".") || "shape"}); the copy was altered`, EXIT.tampered);
  return parsed.data;
}
