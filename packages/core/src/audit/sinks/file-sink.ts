/** The JSON-lines file sink: one entry per line, rotated by size, mode 0600. */
import { open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import type { AuditEntry } from "../schemas.js";
import { createSink, type BufferedSink, type SinkOptions } from "./stream.js";

export interface FileSinkOptions<E> extends Partial<Omit<SinkOptions<E>, "serialize">> {
  /** The file entries are appended to. Its directory must exist. */
  path: string;
  /** Rotate before the file would grow past this many bytes (default 100 MiB). */
  maxBytes?: number;
  /** Rotated files kept beside it, `<path>.1` (newest) to `<path>.<keep>` (default 5). */
  keep?: number;
  /** One entry as one line of JSON (default `JSON.stringify`). */
  serialize?: (entry: E) => string;
}

/** `<path>`, `<path>.1` … `<path>.<keep>`: where the file of age `n` lives (0 is the live file). */
export const rotatedName = (path: string, n: number): string => (n === 0 ? path : `${path}.${n}`);

/**
 * How one batch lands in files of at most `maxBytes`: the byte lengths of its lines are cut into
 * runs, and a rotation goes before every run but (possibly) the first. A line longer than
 * `maxBytes` gets a file of its own rather than being split. Pure, so it is tested by table.
 */
export function planWrites(currentSize: number, lineBytes: readonly number[], maxBytes: number): { rotateFirst: boolean; runs: number[] } {
  const runs: number[] = [];
  let size = currentSize;
  let rotateFirst = false;
  let run = 0;
  for (const bytes of lineBytes) {
    if (size > 0 && size + bytes > maxBytes) {
      if (run > 0) runs.push(run);
      else if (runs.length === 0) rotateFirst = true;
      run = 0;
      size = 0;
    }
    run += 1;
    size += bytes;
  }
  if (run > 0) runs.push(run);
  return { rotateFirst, runs };
}

/**
 * Appends each batch to `path` and syncs it to disk (at least once: a batch whose write failed
 * half way is written again whole, so a reader may see an entry twice — entries carry ids). Rotation renames `<path>` to `<path>.1`
 * (shifting older ones up and removing the one past `keep`) and starts a new file. The files
 * are created with mode 0600 and kept at it (DESIGN.md §11: audit files are 0600). One process
 * writes one file: nodes of a cluster each need their own path.
 */
export async function createFileSink<E = AuditEntry>(options: FileSinkOptions<E>): Promise<BufferedSink<E>> {
  const maxBytes = options.maxBytes ?? 100 * 1024 * 1024;
  const keep = Math.max(1, options.keep ?? 5);
  const path = options.path;

  const openLive = async (): Promise<{ handle: FileHandle; size: number }> => {
    const handle = await open(path, "a", 0o600);
    // `open`'s mode applies only to a new file, and through the umask: set it on an existing one too.
    await handle.chmod(0o600);
    return { handle, size: (await handle.stat()).size };
  };

  // Undefined between closing the old file and opening the new one: a rotation that failed half
  // way is finished by the next attempt.
  let live: { handle: FileHandle; size: number } | undefined = await openLive();
  const current = async () => (live ??= await openLive());
  // Batches are delivered one at a time; this chain also lets `close` wait for a write in progress.
  let writing: Promise<void> = Promise.resolve();

  const rotate = async () => {
    const old = live;
    live = undefined;
    await old?.handle.close();
    await rm(rotatedName(path, keep), { force: true });
    for (let n = keep - 1; n >= 0; n--) {
      const from = rotatedName(path, n);
      if (await exists(from)) await rename(from, rotatedName(path, n + 1));
    }
  };

  const append = async (lines: readonly string[]) => {
    const encoded = lines.map((line) => Buffer.from(`${line}\n`, "utf8"));
    const plan = planWrites((await current()).size, encoded.map((b) => b.length), maxBytes);
    if (plan.rotateFirst) await rotate();
    let offset = 0;
    for (const [i, count] of plan.runs.entries()) {
      if (i > 0) await rotate();
      const chunk = Buffer.concat(encoded.slice(offset, offset + count));
      const file = await current();
      await file.handle.appendFile(chunk);
      await file.handle.datasync();
      file.size += chunk.length;
      offset += count;
    }
  };

  const sink = createSink<E>(
    {
      deliver(lines) {
        const next = writing.then(() => append(lines));
        writing = next.catch(() => undefined);
        return next;
      },
      async close() {
        await writing;
        await live?.handle.close();
        live = undefined;
      },
    },
    { name: `file:${path}`, ...options },
  );
  return sink;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
