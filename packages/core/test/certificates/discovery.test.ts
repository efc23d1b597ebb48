import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LOOPBACK, type Running, type TestWorld, createTestWorld, settleScans, startTlsEndpoint } from "@strongroom/core/testing";
import type { ScanTarget, StrongroomConfig } from "../../src/index.js";
import { createRootCa, issueCertificate, parseCertificate } from "../../src/entries/x509.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let endpoint: Running;
let presented: { leaf: string; root: string };
beforeAll(async () => {
  const now = new Date();
  const root = await createRootCa({ commonName: "Discovery Root", keyAlgorithm: "EC_prime256v1", ttlMs: 30 * DAY, now });
  const leaf = await issueCertificate({
    issuer: { certificatePem: root.certificatePem, privateKeyPem: root.privateKeyPem! },
    subject: { commonName: "auto.test" },
    keyAlgorithm: "EC_prime256v1",
    ttlMs: 10 * DAY,
    now,
  });
  endpoint = await startTlsEndpoint(leaf.privateKeyPem!, leaf.certificatePem + root.certificatePem);
  presented = { leaf: leaf.certificatePem, root: root.certificatePem };
});
afterAll(() => endpoint.close());

let w: TestWorld | undefined;

const certWorld = (config: Partial<StrongroomConfig> = {}) => createTestWorld({ projectType: "cert-manager", config });
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const job = (projectId: string, extra: Record<string, unknown> = {}) => ({
  projectId,
  name: "loopback",
  targetConfig: { ipRanges: [LOOPBACK], ports: String(endpoint.port) },
  ...extra,
});

describe("discovery jobs without private targets (the default)", () => {
  it("refuses loopback and private targets, naming them", async () => {
    w = await certWorld();
    const projectId = w.projectId;
    await expect(w.sr.discovery.create(w.admin, job(projectId))).rejects.toMatchObject({ code: "BadRequest", message: expect.stringContaining("Target 127.0.0.1 refused") });
    await expect(w.sr.discovery.create(w.admin, { ...job(projectId), targetConfig: { ipRanges: ["10.1.2.0/30"] } })).rejects.toMatchObject({
      code: "BadRequest",
      message: expect.stringContaining("10.1.2.0 (in 10.1.2.0/30) refused"),
    });
    const created = await w.sr.discovery.create(w.admin, { ...job(projectId), targetConfig: { ipRanges: ["8.8.8.8"] } });
    await expect(w.sr.discovery.update(w.admin, { id: created.id, targetConfig: { ipRanges: ["127.0.0.2"] } })).rejects.toMatchObject({ code: "BadRequest" });
  });

  it("refuses loopback webhook URLs", async () => {
    w = await certWorld();
    const alert = (url: string) =>
      w!.sr.alerts.create(w!.admin, {
        projectId: w!.projectId,
        name: url,
        eventType: "expiration",
        alertBefore: "30d",
        channels: [{ channelType: "webhook", config: { url } }],
      });
    for (const url of ["https://127.0.0.1/hook", "https://localhost:8443/hook", "https://[::1]/hook", "https://169.254.169.254/"]) {
      await expect(alert(url), url).rejects.toMatchObject({ code: "BadRequest", message: expect.stringContaining("refused") });
    }
  });
});

describe("scans with private targets allowed", () => {
  it("lets one scan run at a time, and replaces one left behind by a dead node", async () => {
    w = await certWorld({ allowPrivateTargets: true, scanTimeoutMs: 2000 });
    const created = await w.sr.discovery.create(w.admin, job(w.projectId));
    const first = await w.sr.discovery.scan(w.admin, { id: created.id });
    expect(first.lastScanStatus).toBe("pending");
    await expect(w.sr.discovery.scan(w.admin, { id: created.id })).rejects.toMatchObject({ code: "BadRequest", message: expect.stringContaining("in progress") });
    await settleScans(w.sr);
    const done = await w.sr.discovery.get(w.admin, { id: created.id });
    expect(done).toMatchObject({ lastScanStatus: "completed", lastScanJobId: first.lastScanJobId, lastScannedAt: w.clock.now().toISOString() });

    // A scan whose node died stays "running" until it is stale.
    await w.sr.context.storage.tables.discoveryJobs.update({ id: created.id }, { lastScanStatus: "running", scanRequestedAt: w.clock.now().toISOString() });
    await expect(w.sr.discovery.scan(w.admin, { id: created.id })).rejects.toMatchObject({ code: "BadRequest" });
    w.clock.advance(HOUR + 1);
    const replaced = await w.sr.discovery.scan(w.admin, { id: created.id });
    expect(replaced.lastScanJobId).not.toBe(first.lastScanJobId);
    await settleScans(w.sr);
  });

  it("auto-scans due jobs from the scheduler, once per interval", async () => {
    w = await certWorld({ allowPrivateTargets: true, scanTimeoutMs: 2000 });
    const auto = await w.sr.discovery.create(w.admin, job(w.projectId, { isAutoScanEnabled: true, scanIntervalDays: 2 }));
    const manual = await w.sr.discovery.create(w.admin, job(w.projectId, { name: "manual" }));
    const paused = await w.sr.discovery.create(w.admin, job(w.projectId, { name: "paused", isAutoScanEnabled: true }));
    await w.sr.discovery.update(w.admin, { id: paused.id, isActive: false });

    expect(await w.sr.scheduler.runDue()).toContain("certificate-discovery-autoscan");
    const scanned = await w.sr.discovery.get(w.admin, { id: auto.id });
    expect(scanned.lastScanStatus).toBe("completed");
    expect((await w.sr.discovery.get(w.admin, { id: manual.id })).lastScanStatus).toBeNull();
    expect((await w.sr.discovery.get(w.admin, { id: paused.id })).lastScanStatus).toBeNull();
    const { installations } = await w.sr.installations.list(w.admin, { projectId: w.projectId });
    expect(installations.map((i) => i.name)).toEqual([`${LOOPBACK}:${endpoint.port}`]);
    expect(installations[0]).toMatchObject({ primaryCertName: "auto.test", certificatesCount: 2, discoveryName: "loopback" });

    // Within the same hour the job does not run; a day later it runs but the job is not yet due.
    expect(await w.sr.scheduler.runDue()).not.toContain("certificate-discovery-autoscan");
    w.clock.advance(DAY);
    expect(await w.sr.scheduler.runDue()).toContain("certificate-discovery-autoscan");
    expect((await w.sr.discovery.get(w.admin, { id: auto.id })).lastScanJobId).toBe(scanned.lastScanJobId);
    w.clock.advance(DAY);
    await w.sr.scheduler.runDue();
    const again = await w.sr.discovery.get(w.admin, { id: auto.id });
    expect(again.lastScanJobId).not.toBe(scanned.lastScanJobId);
    expect(again.lastScannedAt).toBe(w.clock.now().toISOString());
    // The same location and certificates: nothing recorded twice.
    expect((await w.sr.installations.list(w.admin, { projectId: w.projectId })).totalCount).toBe(1);
    expect((await w.sr.certificates.list(w.admin, { projectId: w.projectId })).totalCount).toBe(2);
  });

  it("fails a scan whose targets became refused since the job was saved", async () => {
    w = await certWorld({ allowPrivateTargets: true });
    const created = await w.sr.discovery.create(w.admin, job(w.projectId));
    w.sr.context.config.allowPrivateTargets = false;
    await w.sr.discovery.scan(w.admin, { id: created.id });
    await settleScans(w.sr);
    const failed = await w.sr.discovery.get(w.admin, { id: created.id });
    expect(failed.lastScanStatus).toBe("failed");
    expect(failed.lastScanMessage).toContain("Target 127.0.0.1 refused");
  });
});

describe("scans through the TLS scanner the instance is given", () => {
  it("records what it reports, with the targets and limits of the job and the configuration", async () => {
    const asked: { targets: ScanTarget[]; concurrency?: number; timeoutMs?: number }[] = [];
    w = await createTestWorld({
      projectType: "cert-manager",
      config: { scanConcurrency: 3, scanTimeoutMs: 1234 },
      certManager: {
        tls: {
          async scan(targets, options) {
            asked.push({ targets, concurrency: options.concurrency, timeoutMs: options.timeoutMs });
            const certificates = [presented.leaf, presented.root].map((pem) => ({ ...parseCertificate(pem), pem }));
            return targets.map((target) => ({ ...target, address: target.host, status: "ok" as const, certificates, message: "TLS handshake completed" }));
          },
        },
      },
    });
    const created = await w.sr.discovery.create(w.admin, { projectId: w.projectId, name: "public", targetConfig: { ipRanges: ["8.8.4.4"], ports: "443,8443" } });
    await w.sr.discovery.scan(w.admin, { id: created.id });
    await settleScans(w.sr);
    expect(asked).toEqual([{ targets: [{ host: "8.8.4.4", port: 443 }, { host: "8.8.4.4", port: 8443 }], concurrency: 3, timeoutMs: 1234 }]);
    expect(await w.sr.discovery.get(w.admin, { id: created.id })).toMatchObject({ lastScanStatus: "completed" });
    const { installations } = await w.sr.installations.list(w.admin, { projectId: w.projectId });
    expect(installations.map((i) => i.name).sort()).toEqual(["8.8.4.4:443", "8.8.4.4:8443"]);
    expect(installations[0]).toMatchObject({ primaryCertName: "auto.test", certificatesCount: 2 });
    expect((await w.sr.certificates.list(w.admin, { projectId: w.projectId, source: "discovered" })).totalCount).toBe(2);
  });
});
