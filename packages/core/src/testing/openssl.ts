/** Runs the real openssl CLI over PEM files in a private temp directory: how certificate tests check what was issued. */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface OpensslResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function openssl(args: string[], cwd: string): Promise<OpensslResult> {
  return new Promise((resolve) => {
    execFile("openssl", args, { cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Workspace {
  dir: string;
  write(name: string, contents: string): Promise<string>;
  openssl(...args: string[]): Promise<OpensslResult>;
  dispose(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), "strongroom-certs-"));
  return {
    dir,
    async write(name, contents) {
      await writeFile(join(dir, name), contents);
      return name;
    },
    openssl: (...args) => openssl(args, dir),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
