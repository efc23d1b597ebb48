import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, statSync, chmodSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAbsoluteHttp, parseAuthority } from "../src/http/authority.js";
import { createProxyCa, loadProxyCa } from "../src/identity/certificate-authority.js";
import { loadSealer, prepareDataDir } from "../src/state/data-dir.js";
import { DecisionCache } from "../src/control/decision-cache.js";
import { endToEndHeaders, endToEndRawHeaders } from "../src/http/hop-by-hop.js";
import { LeafCertificates } from "../src/identity/leaf-certificates.js";
import { parseListen } from "../src/cli/listen-address.js";
import { DestinationRefusedError, pinDestination } from "../src/upstream/network-guard.js";
import { sessionTokenFrom } from "../src/http/proxy-authorization.js";
import { Sealer } from "../src/state/sealing.js";
import { SessionGate } from "../src/control/session-gate.js";
import { tokenHash } from "../src/control/session-table.js";

const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("Proxy-Authorization", () => {
  it.each([
    ["Bearer agv_abc", "agv_abc"],
    ["bearer   agv_abc ", "agv_abc"],
    [basic("agent:agv_abc"), "agv_abc"],
    [basic("agv_abc:"), "agv_abc"],
    [basic("agv_abc"), "agv_abc"],
    [basic("user:pa:ss"), "pa:ss"],
    [undefined, null],
    ["", null],
    ["Digest x", null],
    ["Bearer", null],
    [basic(":"), null],
  ])("%s → %s", (header, token) => expect(sessionTokenFrom(header)).toBe(token));
});

describe("authorities and listen addresses", () => {
  it("reads CONNECT authorities into canonical hosts", () => {
    expect(parseAuthority("API.Example.com.:443")).toEqual({ host: "api.example.com", port: 443 });
    expect(parseAuthority("[::1]:8443")).toEqual({ host: "::1", port: 8443 });
    expect(parseAuthority("example.com")).toBeNull();
    expect(parseAuthority("example.com", 80)).toEqual({ host: "example.com", port: 80 });
    for (const bad of ["example.com:0", "example.com:70000", "::1:443", "a b:443", ":443", "exa_mple..com:1"]) expect(parseAuthority(bad)).toBeNull();
  });

  it("splits absolute-form http targets without normalising the path", () => {
    expect(parseAbsoluteHttp("http://Example.com/a/%2e%2e/b?x=1")).toEqual({ authority: { host: "example.com", port: 80 }, path: "/a/%2e%2e/b?x=1" });
    expect(parseAbsoluteHttp("http://127.0.0.1:8080?q")).toEqual({ authority: { host: "127.0.0.1", port: 8080 }, path: "/?q" });
    expect(parseAbsoluteHttp("http://user:pw@example.com/")).toBeNull();
    expect(parseAbsoluteHttp("https://example.com/")).toBeNull();
    expect(parseAbsoluteHttp("/relative")).toBeNull();
  });

  it("parses --listen", () => {
    expect(parseListen("127.0.0.1:14322")).toEqual({ host: "127.0.0.1", port: 14322 });
    expect(parseListen("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(parseListen(":9000")).toEqual({ host: "127.0.0.1", port: 9000 });
    expect(() => parseListen("14322")).toThrow(/host:port/);
  });
});

describe("network guard", () => {
  const guard = (allowPrivateTargets: boolean, answers: string[] = []) => ({ allowPrivateTargets, lookup: async () => answers });

  it.each(["169.254.169.254", "169.254.170.2", "fd00:ec2::254", "fe80::1", "169.254.1.1", "0.0.0.0", "224.0.0.1", "::ffff:169.254.169.254"])(
    "always refuses %s",
    async (address) => {
      await expect(pinDestination(address, 443, guard(true))).rejects.toBeInstanceOf(DestinationRefusedError);
    },
  );

  it("refuses private and loopback addresses unless allowed", async () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "192.168.1.1", "::1", "fd12::1"]) {
      await expect(pinDestination(address, 443, guard(false))).rejects.toThrow(/refused unless private targets are allowed/);
      await expect(pinDestination(address, 443, guard(true))).resolves.toEqual({ host: address, port: 443, address });
    }
    await expect(pinDestination("8.8.8.8", 443, guard(false))).resolves.toMatchObject({ address: "8.8.8.8" });
  });

  it("judges every address a name resolves to and dials the checked one", async () => {
    await expect(pinDestination("metadata.internal", 80, guard(true, ["169.254.169.254"]))).rejects.toThrow(/metadata.internal resolves to 169.254.169.254: metadata/);
    await expect(pinDestination("mixed.example", 443, guard(false, ["10.0.0.1", "93.184.216.34"]))).resolves.toEqual({ host: "mixed.example", port: 443, address: "93.184.216.34" });
    await expect(pinDestination("nothing.example", 443, guard(false, []))).rejects.toThrow(/no address/);
  });
});

describe("hop-by-hop headers", () => {
  it("drops connection-scoped headers, those Connection names, and Proxy-Authorization", () => {
    const headers = endToEndHeaders({ connection: "close, x-hop", "x-hop": "1", "proxy-authorization": "Bearer agv_x", te: "trailers", "keep-alive": "5", accept: "*/*", "x-end": "2" });
    expect(headers).toEqual({ accept: "*/*", "x-end": "2" });
    expect(endToEndRawHeaders(["Content-Type", "text/plain", "Connection", "X-Hop", "X-Hop", "1", "Transfer-Encoding", "chunked", "Set-Cookie", "a", "Set-Cookie", "b"])).toEqual([
      "Content-Type",
      "text/plain",
      "Set-Cookie",
      "a",
      "Set-Cookie",
      "b",
    ]);
  });
});

describe("data directory", () => {
  it("creates a 0600 key file, refuses one others can read, and seals per purpose", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-agent-proxy-unit-"));
    dirs.push(dir);
    await prepareDataDir(dir);
    const sealer = await loadSealer(dir);
    expect(statSync(join(dir, "proxy.key")).mode & 0o777).toBe(0o600);
    const again = await loadSealer(dir);
    const sealed = sealer.seal("access-token", "token-value");
    expect(JSON.stringify(sealed)).not.toContain("token-value");
    expect(again.open("access-token", sealed)).toBe("token-value");
    expect(() => again.open("ca-private-key", sealed)).toThrow(/cannot be decrypted/);
    expect(() => new Sealer(Buffer.alloc(32, 1)).open("access-token", sealed)).toThrow(/cannot be decrypted/);
    expect(readFileSync(join(dir, "proxy.key"), "utf8").trim()).toHaveLength(44);
    chmodSync(join(dir, "proxy.key"), 0o644);
    await expect(loadSealer(dir)).rejects.toThrow(/chmod 600/);
  });
});

describe("leaf certificates", () => {
  it("issues one leaf per host from the proxy CA, cached, with the right SAN", async () => {
    const ca = loadProxyCa(await createProxyCa(new Date()));
    const caCertificate = new X509Certificate(ca.certificatePem);
    expect(caCertificate.ca).toBe(true);
    expect(caCertificate.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const leaves = new LeafCertificates(ca, { capacity: 2 });
    const [first, same] = await Promise.all([leaves.contextFor("api.example.com"), leaves.contextFor("api.example.com")]);
    expect(same).toBe(first);
    await leaves.contextFor("127.0.0.1");
    await leaves.contextFor("::1");
    expect(leaves.size).toBe(2);
    expect(await leaves.contextFor("::1")).toBe(await leaves.contextFor("::1"));
    expect(await leaves.contextFor("api.example.com")).not.toBe(first);
  });
});

describe("decision cache", () => {
  it("shares a call per key until cleared, and keeps neither failures nor unknown sessions", async () => {
    const cache = new DecisionCache();
    let calls = 0;
    const load = async () => (calls++, { action: "passthrough" as const, reason: "no-matching-service" as const });
    await Promise.all([cache.get("k", load), cache.get("k", load)]);
    expect(calls).toBe(1);
    cache.clear();
    await cache.get("k", load);
    expect(calls).toBe(2);
    await expect(cache.get("f", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    await cache.get("gone", async () => null);
    await Promise.resolve();
    expect(cache.size).toBe(1);
  });
});

describe("session gate", () => {
  const session = (token: string) => ({ id: `id-${token}`, tokenHash: tokenHash(token), bundleId: "b", expiresAt: new Date(Date.now() + 60_000).toISOString() });

  it("polls once for a token it does not know, then remembers it as refused", async () => {
    let polls = 0;
    const gate = new SessionGate(async () => {
      polls++;
      gate.update([session("old"), session("new")]);
      return true;
    }, { minGapMs: 0 });
    gate.update([session("old")]);
    expect(await gate.session("old")).toMatchObject({ id: "id-old" });
    expect(polls).toBe(0);
    expect(await gate.session("new")).toMatchObject({ id: "id-new" });
    expect(polls).toBe(1);
    expect(await gate.session("junk")).toBeNull();
    expect(await gate.session("junk")).toBeNull();
    expect(polls).toBe(2);
  });

  it("does not remember a token as refused when the server could not be reached", async () => {
    let reachable = false;
    const gate = new SessionGate(async () => {
      if (reachable) gate.update([session("late")]);
      return reachable;
    }, { minGapMs: 0 });
    expect(await gate.session("late")).toBeNull();
    reachable = true;
    expect(await gate.session("late")).toMatchObject({ id: "id-late" });
  });

  it("refuses expired sessions without asking", async () => {
    const gate = new SessionGate(async () => true, { minGapMs: 0 });
    gate.update([{ ...session("past"), expiresAt: new Date(Date.now() - 1).toISOString() }]);
    expect(await gate.session("past")).toBeNull();
  });
});
