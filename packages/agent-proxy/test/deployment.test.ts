import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCliOptions } from "../src/cli/options.js";
import { prepareDataDir } from "../src/state/data-dir.js";
import { DATA_DIRECTORY, exposureProblem, KEY_FILE_RULE } from "../src/state/file-exposure.js";
import { readSealingKey } from "../src/state/key-source.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-deploy-"));
  dirs.push(dir);
  return dir;
};
const KEY = Buffer.alloc(32, 7).toString("base64");

describe("where the proxy's secrets may live", () => {
  it.each<[string, { uid: number; mode: number }, string | null]>([
    ["its own 0700 directory", { uid: 1000, mode: 0o700 }, null],
    ["a directory another user owns", { uid: 1001, mode: 0o700 }, "owned by uid 1001"],
    ["a directory root owns", { uid: 0, mode: 0o700 }, "owned by uid 0"],
    ["a group-readable directory", { uid: 1000, mode: 0o750 }, "mode 0750"],
    ["a world-readable directory", { uid: 1000, mode: 0o755 }, "mode 0755"],
    ["a world-writable-only directory", { uid: 1000, mode: 0o703 }, "mode 0703"],
  ])("data directory: %s", (_name, facts, problem) => {
    const found = exposureProblem("/d", facts, 1000, DATA_DIRECTORY);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });

  it.each<[string, { uid: number; mode: number }, boolean]>([
    ["root's 0400 key file", { uid: 0, mode: 0o400 }, true],
    ["the proxy's own 0600 key file", { uid: 1000, mode: 0o600 }, true],
    ["another user's key file", { uid: 1001, mode: 0o400 }, false],
    ["a group-readable key file", { uid: 0, mode: 0o440 }, false],
  ])("key file: %s", (_name, facts, fine) => {
    expect(exposureProblem("/k", facts, 1000, KEY_FILE_RULE) === null).toBe(fine);
  });

  it("refuses to start on a data directory other users can read", async () => {
    const dir = join(scratch(), "data");
    mkdirSync(dir, { mode: 0o700 });
    await expect(prepareDataDir(dir)).resolves.toBeUndefined();
    chmodSync(dir, 0o755);
    await expect(prepareDataDir(dir)).rejects.toThrow(/open to other users \(mode 0755\)/);
  });
});

describe("the sealing key from outside the data directory", () => {
  it("reads it from an inherited file descriptor, which a root shell can open on a root-only file", () => {
    const keyFile = join(scratch(), "proxy.key");
    writeFileSync(keyFile, `${KEY}\n`, { mode: 0o400 });
    // A child with the key on descriptor 3, as `strongroom-agent-proxy 3< /etc/strongroom/proxy.key` would have it.
    const script = `import("${new URL("../src/state/key-source.ts", import.meta.url).pathname}").then((m) => process.stdout.write(m.readSealingKey({ kind: "fd", fd: 3 }).toString("base64")))`;
    const fd = openSync(keyFile, "r");
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", script], { stdio: ["ignore", "pipe", "pipe", fd], encoding: "utf8" });
    closeSync(fd);
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe(KEY);
  });

  it("reads a private key file and refuses one others can read", () => {
    const keyFile = join(scratch(), "proxy.key");
    writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
    expect(readSealingKey({ kind: "file", path: keyFile }).toString("base64")).toBe(KEY);
    chmodSync(keyFile, 0o644);
    expect(() => readSealingKey({ kind: "file", path: keyFile })).toThrow(/open to other users/);
    expect(() => readSealingKey({ kind: "env", base64: "c2hvcnQ=" })).toThrow(/base64 of 32 bytes/);
  });

  it("takes one key source only, and limits from flags and the environment", () => {
    const keyFile = join(scratch(), "proxy.key");
    writeFileSync(keyFile, KEY, { mode: 0o600 });
    const base = ["--server", "http://127.0.0.1:1"];
    const parsed = readCliOptions([...base, "--key-file", keyFile, "--limit", "headerTimeoutMs=300"], { STRONGROOM_AGENT_PROXY_LIMITS: "maxTunnelsPerSession=2" });
    expect(parsed).toMatchObject({ help: false, options: { limits: { headerTimeoutMs: 300, maxTunnelsPerSession: 2 } } });
    expect(!parsed.help && parsed.options.sealingKey?.toString("base64")).toBe(KEY);
    expect(() => readCliOptions([...base, "--key-file", keyFile], { STRONGROOM_AGENT_PROXY_KEY: KEY })).toThrow(/one way only/);
    expect(() => readCliOptions([...base, "--key-fd", "1"], {})).toThrow(/3 or more/);
    expect(() => readCliOptions([...base, "--limit", "nonsense=1"], {})).toThrow(/unknown limit/);
  });
});
