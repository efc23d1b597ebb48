/** The real openssl CLI over files in a private temp directory: an independent judge of our signatures. */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Scratch {
  write(name: string, contents: string | Buffer): Promise<string>;
  /** True when openssl exits 0 (for `-verify`: "Verified OK" / "Signature Verified Successfully"). */
  succeeds(...args: string[]): Promise<boolean>;
  dispose(): Promise<void>;
}

export async function scratch(): Promise<Scratch> {
  const dir = await mkdtemp(join(tmpdir(), "strongroom-kms-"));
  return {
    async write(name, contents) {
      await writeFile(join(dir, name), contents);
      return name;
    },
    succeeds: (...args) => new Promise((resolve) => execFile("openssl", args, { cwd: dir }, (error) => resolve(!error))),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
