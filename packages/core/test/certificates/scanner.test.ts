import { type AddressInfo, type Server, type Socket, createServer as createTcpServer } from "node:net";
import { type SecureContextOptions, createSecureContext, createServer as createTlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanTargets } from "../../src/cert-manager/node/tls-scanner.js";
import { type IssuedCertificate, createIntermediateCa, createRootCa, issueCertificate } from "../../src/entries/x509.js";
import { addressRefusal, classifyAddress } from "../../src/net/address-class.js";

const DAY = 86_400_000;
const LOOPBACK = "127.0.0.1";

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, LOOPBACK, () => resolve((server.address() as AddressInfo).port)));
const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

let intermediate: IssuedCertificate;
let alpha: IssuedCertificate;
let beta: IssuedCertificate;
let sni: IssuedCertificate;
const servers: Server[] = [];
const ports = { alpha: 0, beta: 0, closed: 0, silent: 0 };
/** Sockets the silent server holds, to check the scanner hangs up on each. */
const silentSockets = new Set<Socket>();
const silentAccepts: number[] = [];

const tlsOptions = (leaf: IssuedCertificate): SecureContextOptions => ({
  key: leaf.privateKeyPem!,
  cert: leaf.certificatePem + intermediate.certificatePem,
});

beforeAll(async () => {
  const now = new Date();
  const root = await createRootCa({ commonName: "Scan Root", keyAlgorithm: "EC_prime256v1", ttlMs: 10 * DAY, now });
  intermediate = await createIntermediateCa({
    parent: { certificatePem: root.certificatePem, privateKeyPem: root.privateKeyPem! },
    commonName: "Scan Issuing",
    keyAlgorithm: "EC_prime256v1",
    ttlMs: 5 * DAY,
    now,
  });
  const issuer = { certificatePem: intermediate.certificatePem, privateKeyPem: intermediate.privateKeyPem! };
  const leaf = (commonName: string) =>
    issueCertificate({ issuer, subject: { commonName }, subjectAltNames: [{ type: "dns_name", value: commonName }], keyAlgorithm: "EC_prime256v1", ttlMs: DAY, now });
  [alpha, beta, sni] = await Promise.all([leaf("alpha.test"), leaf("beta.test"), leaf("sni.test")]);

  const sniContext = createSecureContext(tlsOptions(sni));
  const alphaServer = createTlsServer({ ...tlsOptions(alpha), SNICallback: (name, cb) => cb(null, name === "sni.test" ? sniContext : undefined) });
  const betaServer = createTlsServer(tlsOptions(beta));
  const silentServer = createTcpServer((socket) => {
    silentSockets.add(socket);
    silentAccepts.push(performance.now());
    socket.on("close", () => silentSockets.delete(socket));
    socket.on("error", () => {});
    // Read (and ignore) the ClientHello, so the scanner's hang-up is seen.
    socket.resume();
  });
  for (const server of [alphaServer, betaServer, silentServer]) servers.push(server);
  ports.alpha = await listen(alphaServer);
  ports.beta = await listen(betaServer);
  ports.silent = await listen(silentServer);
  // A port that was just free and is closed again: nothing listens there.
  const probe = createTcpServer();
  ports.closed = await listen(probe);
  await close(probe);
});

afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  await Promise.all(servers.map(close));
});

describe("scanTargets against loopback servers", () => {
  it("reports each certificate chain, a closed port and a silent server, in target order", async () => {
    const results = await scanTargets(
      [
        { host: LOOPBACK, port: ports.alpha },
        { host: LOOPBACK, port: ports.closed },
        { host: LOOPBACK, port: ports.silent },
        { host: LOOPBACK, port: ports.beta },
      ],
      { timeoutMs: 400 },
    );
    expect(results.map((r) => [r.port, r.status])).toEqual([
      [ports.alpha, "ok"],
      [ports.closed, "closed"],
      [ports.silent, "timeout"],
      [ports.beta, "ok"],
    ]);
    const [a, closed, silent, b] = results;
    expect(a!.address).toBe(LOOPBACK);
    expect(a!.certificates.map((c) => c.fingerprintSha256)).toEqual([alpha.fingerprintSha256, intermediate.fingerprintSha256]);
    expect(a!.certificates[0]).toMatchObject({
      commonName: "alpha.test",
      issuer: "CN=Scan Issuing",
      notAfter: alpha.notAfter,
      isCA: false,
      subjectAltNames: [{ type: "dns_name", value: "alpha.test" }],
      pem: alpha.certificatePem,
    });
    expect(a!.certificates[1]!.isCA).toBe(true);
    expect(b!.certificates[0]!.fingerprintSha256).toBe(beta.fingerprintSha256);
    expect(b!.certificates[0]!.fingerprintSha256).not.toBe(a!.certificates[0]!.fingerprintSha256);
    expect(a!.message).toMatch(/TLS handshake completed \(TLSv1\.3\)/);
    expect(closed).toMatchObject({ certificates: [], message: expect.stringMatching(/ECONNREFUSED/) });
    expect(silent).toMatchObject({ certificates: [], message: "No TLS handshake within 400 ms" });
  });

  it("resolves a domain once, dials the address and sends the domain as SNI", async () => {
    const lookups: string[] = [];
    const resolve = async (hostname: string) => {
      lookups.push(hostname);
      return LOOPBACK;
    };
    const results = await scanTargets(
      [
        { host: "sni.test", port: ports.alpha, servername: "sni.test" },
        { host: "sni.test", port: ports.beta, servername: "sni.test" },
      ],
      { resolve, timeoutMs: 2000 },
    );
    expect(lookups).toEqual(["sni.test"]);
    expect(results[0]).toMatchObject({ host: "sni.test", address: LOOPBACK, status: "ok" });
    expect(results[0]!.certificates[0]!.fingerprintSha256).toBe(sni.fingerprintSha256);
    expect(results[1]!.certificates[0]!.fingerprintSha256).toBe(beta.fingerprintSha256);
  });

  it("checks the resolved address, so a name pointing at loopback is refused without dialling", async () => {
    const results = await scanTargets([{ host: "rebind.test", port: ports.alpha, servername: "rebind.test" }], {
      resolve: async () => LOOPBACK,
      refuseAddress: (address) => addressRefusal(classifyAddress(address), false),
    });
    expect(results[0]).toMatchObject({ status: "error", certificates: [], message: expect.stringMatching(/Refused to connect to 127\.0\.0\.1: loopback/) });
  });

  it("reports a name that does not resolve", async () => {
    const results = await scanTargets([{ host: "nowhere.test", port: 443 }], {
      resolve: async () => {
        throw new Error("ENOTFOUND");
      },
    });
    expect(results[0]).toMatchObject({ status: "error", message: "Could not resolve nowhere.test: ENOTFOUND" });
  });

  it("gives up on a resolver that never answers", async () => {
    const results = await scanTargets([{ host: "slow.test", port: 443, servername: "slow.test" }], {
      resolve: () => new Promise(() => {}),
      timeoutMs: 100,
    });
    expect(results[0]).toMatchObject({ status: "timeout", message: "No DNS answer for slow.test within 100 ms" });
  });

  it("keeps at most `concurrency` handshakes open and hangs up on every one", async () => {
    silentAccepts.length = 0;
    const targets = Array.from({ length: 6 }, () => ({ host: LOOPBACK, port: ports.silent }));
    const results = await scanTargets(targets, { concurrency: 2, timeoutMs: 300 });
    expect(results.every((r) => r.status === "timeout")).toBe(true);
    // With two in flight, a third connection waits for one of the first two to time out.
    expect(silentAccepts).toHaveLength(6);
    for (let i = 0; i + 2 < silentAccepts.length; i++) expect(silentAccepts[i + 2]! - silentAccepts[i]!).toBeGreaterThan(200);
    await expect.poll(() => silentSockets.size, { timeout: 2000 }).toBe(0);
  });

  it("an empty target list scans nothing", async () => {
    expect(await scanTargets([])).toEqual([]);
  });
});
