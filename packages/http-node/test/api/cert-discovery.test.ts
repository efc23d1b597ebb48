import { describe, expect } from "vitest";
import { createRootCa, issueCertificate } from "@strongroom/core/x509";
import { type Running, closedPort, settleScans, startSilentEndpoint, startTlsEndpoint } from "@strongroom/core/testing";
import { DAY, certSuite, createCa, createProfile, expectBound, q, type CertSuite } from "./cert-fixtures.js";
import { backends, createProject, expectError } from "../../src/testing/harness.js";

const JOBS = "/api/v1/cert-manager/discovery-jobs";
const INSTALLATIONS = "/api/v1/cert-manager/installations";

const JOB_KEYS = [
  "id", "name", "description", "discoveryType", "targetConfig", "isAutoScanEnabled", "scanIntervalDays", "gatewayId", "gatewayPoolId",
  "isActive", "lastScanStatus", "lastScanJobId", "lastScanMessage", "lastScannedAt", "createdAt", "updatedAt",
].sort();
const INSTALLATION_KEYS = [
  "id", "locationType", "locationFingerprint", "name", "type", "primaryCertName", "discoveryName", "lastSeenAt", "createdAt", "updatedAt",
  "locationDetails", "metadata", "certificatesCount",
].sort();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs the scan through the API and waits for it, as a client polling the job would. */
async function scan(s: CertSuite, jobId: string): Promise<{ started: any; finished: any }> {
  const res = await s.send("POST", `${JOBS}/${jobId}/scan`);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await settleScans(s.api.strongroom);
  return { started: res.body, finished: await s.ok("GET", `${JOBS}/${jobId}`) };
}

describe.each(backends)("discovery jobs and installations on %s", (backend) => {
  const { maybe } = certSuite(backend);

  maybe("create enforces every SPEC bound on both sides and validates each target", async (s) => {
    let n = 0;
    const create = (body: Record<string, unknown>) =>
      s.send("POST", JOBS, { projectId: s.projectId, name: `job-${++n}`, targetConfig: { ipRanges: ["192.0.2.0/30"], ports: "443" }, ...body });
    const made = await create({ name: "bounds" });
    expect(made.status).toBe(200);
    expect(Object.keys(made.body).sort()).toEqual(JOB_KEYS);
    expect(made.body).toMatchObject({
      name: "bounds",
      description: "",
      discoveryType: "network",
      targetConfig: { ipRanges: ["192.0.2.0/30"], domains: [], ports: "443" },
      isAutoScanEnabled: false,
      scanIntervalDays: 7,
      gatewayId: null,
      gatewayPoolId: null,
      isActive: true,
      lastScanStatus: null,
      lastScanJobId: null,
      lastScanMessage: null,
      lastScannedAt: null,
    });
    await expectBound((name) => create({ name }), ["x", "n".repeat(100)], ["", "n".repeat(101), "   "]);
    await expectBound((description) => create({ description }), ["", "d".repeat(255)], ["d".repeat(256)]);
    await expectBound((scanIntervalDays) => create({ scanIntervalDays }), [1, 365], [0, 366, 2.5]);
    await expectBound((discoveryType) => create({ discoveryType }), ["network"], ["agent", 1]);
    await expectBound((isAutoScanEnabled) => create({ isAutoScanEnabled }), [true, false], ["yes"]);
    await expectBound((targetConfig) => create({ targetConfig }), [{ domains: ["example.com"] }], [{ ipRanges: "10.0.0.1" }, { ipRanges: [], extra: 1 }, undefined]);
    await expectBound((gatewayId) => create({ gatewayId }), [null], ["not-a-uuid"]);

    const refused = async (targetConfig: Record<string, unknown>, naming: string) => {
      const body = expectError(await create({ targetConfig }), 400);
      expect(body.message).toContain(naming);
    };
    await refused({ ipRanges: ["10.0.0.0/23"] }, "10.0.0.0/23");
    await refused({ ipRanges: ["169.254.169.254"] }, "169.254.169.254");
    await refused({ ipRanges: ["192.0.2.1-192.0.3.1"] }, "192.0.2.1-192.0.3.1");
    await refused({ domains: ["not a host"] }, "not a host");
    await refused({ ipRanges: ["192.0.2.1"], ports: "70000" }, "70000");
    await refused({ ipRanges: [] }, "at least one IP range or domain");
    expectError(await create({ gatewayId: "6f1c1a38-1b7e-4c52-9a53-3d5b1f6f9a10" }), 400);
    expectError(await create({ name: "bounds" }), 400);
    const secrets = await createProject(s.api, s.token, { projectName: "Not PKI" });
    expectError(await s.send("POST", JOBS, { projectId: secrets.id, name: "x", targetConfig: { domains: ["example.com"] } }), 400);

    const patched = await s.ok("PATCH", `${JOBS}/${made.body.id}`, { name: "renamed", isAutoScanEnabled: true, scanIntervalDays: 30, isActive: false });
    expect(patched).toMatchObject({ name: "renamed", isAutoScanEnabled: true, scanIntervalDays: 30, isActive: false });
    expectError(await s.send("PATCH", `${JOBS}/${made.body.id}`, { targetConfig: { ipRanges: ["0.0.0.0"] } }), 400);
    expectError(await s.send("PATCH", `${JOBS}/${made.body.id}`, { scanIntervalDays: 366 }), 422);
    const listed = await s.ok("GET", `${JOBS}${q({ projectId: s.projectId, search: "RENAMED" })}`);
    expect(listed.discoveryJobs.map((j: { id: string }) => j.id)).toEqual([made.body.id]);
    expect(await s.ok("DELETE", `${JOBS}/${made.body.id}`)).toMatchObject({ id: made.body.id, name: "renamed" });
    expectError(await s.send("GET", `${JOBS}/${made.body.id}`), 404);
  });

  maybe("scans TLS servers on 127.0.0.1: several ports, a closed one and one that never completes the handshake", async (s) => {
    Object.assign(s.api.strongroom.context.config, { scanTimeoutMs: 1500 });
    const project = await createProject(s.api, s.token, { projectName: "Scanned", type: "cert-manager" });
    const p: CertSuite = { ...s, projectId: project.id };
    // One endpoint presents a certificate issued through the API (with its CA), the other a self-signed one made elsewhere.
    const ca = await createCa(p, { name: "scan-root", commonName: "Scan Root" });
    const profile = await createProfile(p, { slug: "servers", issuerType: "ca", caId: ca.id, defaults: { ttlDays: 30, keyAlgorithm: "EC_prime256v1" } });
    const issued = (await p.ok("POST", "/api/v1/cert-manager/certificates", { profileId: profile.id, attributes: { commonName: "issued.scan.test" } })).certificate;
    const foreign = await createRootCa({ commonName: "foreign.scan.test", keyAlgorithm: "EC_prime256v1", ttlMs: 20 * DAY, now: s.api.clock.now() });
    const servers: Running[] = [];
    try {
      servers.push(await startTlsEndpoint(issued.privateKey, issued.certificate + issued.certificateChain));
      servers.push(await startTlsEndpoint(foreign.privateKeyPem!, foreign.certificatePem));
      servers.push(await startSilentEndpoint());
      const [withChain, selfSigned, silent] = servers.map((server) => server.port);
      const closed = await closedPort();
      const job = await p.ok("POST", JOBS, {
        projectId: project.id,
        name: "loopback",
        targetConfig: { ipRanges: ["127.0.0.1"], ports: `${withChain},${selfSigned},${closed},${silent},${withChain}` },
      });
      expect(job.targetConfig.ports).toBe(`${withChain},${selfSigned},${closed},${silent},${withChain}`);

      const first = await scan(p, job.id);
      expect(first.started).toMatchObject({ id: job.id, lastScanStatus: "pending", lastScannedAt: null });
      expect(first.started.lastScanJobId).toMatch(UUID);
      expect(first.finished).toMatchObject({
        lastScanStatus: "completed",
        lastScanJobId: first.started.lastScanJobId,
        lastScannedAt: s.api.clock.now().toISOString(),
        lastScanMessage: "Scanned 4 endpoints: 2 presented certificates (2 new), 1 closed, 1 timed out",
      });
      expectError(await p.send("POST", `${JOBS}/00000000-0000-4000-8000-000000000000/scan`), 404);

      const listed = await p.ok("GET", `${INSTALLATIONS}${q({ projectId: project.id })}`);
      expect(listed.totalCount).toBe(2);
      for (const installation of listed.installations) expect(Object.keys(installation).sort()).toEqual(INSTALLATION_KEYS);
      const byPort = new Map<number, any>(listed.installations.map((i: any) => [i.locationDetails.port, i]));
      expect(byPort.get(withChain)).toMatchObject({
        name: `127.0.0.1:${withChain}`,
        locationType: "network",
        type: "unknown",
        primaryCertName: "issued.scan.test",
        discoveryName: "loopback",
        metadata: null,
        certificatesCount: 2,
        locationDetails: { ipAddress: "127.0.0.1", port: withChain, protocol: "tls" },
      });
      expect(byPort.get(selfSigned)).toMatchObject({ primaryCertName: "foreign.scan.test", certificatesCount: 1 });

      // The issued certificate is recognised by its fingerprint; the CA and the foreign certificate are new, discovered ones.
      const certificates = await p.ok("GET", `/api/v1/cert-manager/certificates${q({ projectId: project.id })}`);
      expect(certificates.totalCount).toBe(3);
      const bySource = (source: string) => certificates.certificates.filter((c: any) => c.source === source).map((c: any) => c.commonName).sort();
      expect(bySource("issued")).toEqual(["issued.scan.test"]);
      expect(bySource("discovered")).toEqual(["Scan Root", "foreign.scan.test"]);

      const byCertificate = await p.ok("GET", `${INSTALLATIONS}${q({ projectId: project.id, certificateId: issued.certificateId })}`);
      expect(byCertificate.installations.map((i: any) => i.locationDetails.port)).toEqual([withChain]);
      const detail = await p.ok("GET", `${INSTALLATIONS}/${byPort.get(withChain)!.id}`);
      expect(detail.certificates.map((c: any) => c.commonName)).toEqual(["issued.scan.test", "Scan Root"]);
      expect(detail.certificates[0]).toMatchObject({ id: issued.certificateId, isCA: false });

      // A second scan finds the same locations and certificates: nothing is recorded twice.
      s.api.clock.advance(60_000);
      const second = await scan(p, job.id);
      expect(second.finished.lastScanJobId).not.toBe(first.started.lastScanJobId);
      expect(second.finished.lastScanMessage).toContain("2 presented certificates (0 new)");
      const again = await p.ok("GET", `${INSTALLATIONS}${q({ projectId: project.id, discoveryId: job.id })}`);
      expect(again.installations.map((i: any) => [i.id, i.locationFingerprint]).sort()).toEqual(
        listed.installations.map((i: any) => [i.id, i.locationFingerprint]).sort(),
      );
      expect(again.installations.every((i: any) => i.lastSeenAt === s.api.clock.now().toISOString())).toBe(true);
      expect((await p.ok("GET", `/api/v1/cert-manager/certificates${q({ projectId: project.id })}`)).totalCount).toBe(3);

      // Deleting the job keeps what it found.
      await p.ok("DELETE", `${JOBS}/${job.id}`);
      const kept = await p.ok("GET", `${INSTALLATIONS}${q({ projectId: project.id })}`);
      expect(kept.totalCount).toBe(2);
      expect(kept.installations[0].discoveryName).toBe("loopback");
      expect((await p.ok("GET", `${INSTALLATIONS}${q({ projectId: project.id, discoveryId: job.id })}`)).totalCount).toBe(0);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  });

  maybe("lists installations newest first with SPEC's offset and limit bounds and a case-insensitive search", async (s) => {
    const project = await createProject(s.api, s.token, { projectName: "Seeded", type: "cert-manager" });
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    const table = s.api.strongroom.context.storage.tables.certificateInstallations;
    for (let i = 0; i < 30; i++) {
      const host = i === 7 ? "Web.Example.TEST" : `10.9.0.${i}`;
      const at = new Date(start + i * 1000).toISOString();
      await table.insert({
        id: crypto.randomUUID(),
        projectId: project.id,
        discoveryId: null,
        locationType: "network",
        locationFingerprint: `fp-${i}`,
        host: host.toLowerCase(),
        ipAddress: i === 7 ? "10.9.1.7" : host,
        port: 443,
        name: `${host}:443`,
        type: "unknown",
        primaryCertName: `cert-${i}`,
        discoveryName: "seed",
        locationDetails: { ipAddress: host, port: 443, protocol: "tls" },
        metadata: null,
        lastSeenAt: at,
        createdAt: at,
        updatedAt: at,
      });
    }
    const list = (params: Record<string, string | number | undefined>) => s.send("GET", `${INSTALLATIONS}${q({ projectId: project.id, ...params })}`);
    const first = await list({});
    expect(first.body.totalCount).toBe(30);
    expect(first.body.installations).toHaveLength(25);
    expect(first.body.installations[0].primaryCertName).toBe("cert-29");
    expect((await list({ offset: 25 })).body.installations.map((i: any) => i.primaryCertName)).toEqual(["cert-4", "cert-3", "cert-2", "cert-1", "cert-0"]);
    await expectBound((offset) => list({ offset: offset as number }), [0, 1, 30], [-1, "x", 0.5]);
    await expectBound((limit) => list({ limit: limit as number }), [1, 100], [0, 101, -5]);
    expect((await list({ limit: 1 })).body.installations).toHaveLength(1);
    expect((await list({ search: "web.example" })).body.installations.map((i: any) => i.name)).toEqual(["Web.Example.TEST:443"]);
    expect((await list({ search: "WEB.EXAMPLE.test:443" })).body.totalCount).toBe(1);
    expect((await list({ search: "10.9.1.7" })).body.installations.map((i: any) => i.primaryCertName)).toEqual(["cert-7"]);
    expect((await list({ search: "10.9.0.1" })).body.totalCount).toBe(11);
    expect((await list({ search: "%" })).body.totalCount).toBe(0);
    expect((await list({ certificateId: "00000000-0000-4000-8000-000000000000" })).body).toEqual({ installations: [], totalCount: 0 });
    expectError(await s.send("GET", `${INSTALLATIONS}`), 422);
    expectError(await s.send("GET", `${INSTALLATIONS}/00000000-0000-4000-8000-000000000000`), 404);
  });
});
