import { closeSync, readFileSync, statSync } from "node:fs";
import { exposureProblem, KEY_FILE_RULE } from "./file-exposure.js";
import { SEALING_KEY_BYTES } from "./sealing.js";

/**
 * Where the key that seals the data directory comes from when it is not the directory's own key
 * file: the environment, a file descriptor the proxy inherits (a root-only file that a service
 * manager or a root shell opens for it: `3< /etc/strongroom/proxy.key`), or a file no other user
 * can read. Either of the last two keeps the key out of reach of a process running as the proxy's
 * user that reads the data directory.
 */
export type KeySource = { readonly kind: "env"; readonly base64: string } | { readonly kind: "fd"; readonly fd: number } | { readonly kind: "file"; readonly path: string };

export function readSealingKey(source: KeySource): Buffer {
  const text = source.kind === "env" ? source.base64 : source.kind === "fd" ? readDescriptor(source.fd) : readPrivateFile(source.path);
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`the sealing key (${describe(source)}) must be base64 of ${SEALING_KEY_BYTES} bytes`);
  return key;
}

function readDescriptor(fd: number): string {
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function readPrivateFile(path: string): string {
  if (process.platform !== "win32") {
    const problem = exposureProblem(path, statSync(path), process.getuid!(), KEY_FILE_RULE);
    if (problem) throw new Error(problem);
  }
  return readFileSync(path, "utf8");
}

const describe = (source: KeySource) => (source.kind === "env" ? "STRONGROOM_AGENT_PROXY_KEY" : source.kind === "fd" ? `file descriptor ${source.fd}` : source.path);
