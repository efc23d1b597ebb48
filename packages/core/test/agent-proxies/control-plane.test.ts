import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { anonymous, BadRequestError, ManualClock, type Actor, type Strongroom } from "../../src/index.js";
import { purgeLapsedAgentRecords } from "../../src/agent-vault/housekeeping.js";
import { isProxyHealthy } from "../../src/agent-vault/proxies/view.js";
import { readRootCa } from "../../src/agent-vault/proxies/root-ca.js";
import { createRootCa, issueCertificate } from "../../src/x509/issue.js";

const DAY = 24 * 60 * 60 * 1000;
const now = new Date("2026-03-01T12:00:00.000Z");

const rootCa = (at: Date, ttlMs = 365 * DAY) => createRootCa({ commonName: "Proxy CA", keyAlgorithm: "EC_prime256v1", ttlMs, now: at });

describe("isProxyHealthy", () => {
  it("is true while the last heartbeat is newer than three poll intervals", () => {
    const at = (ms: number) => new Date(now.getTime() + ms);
    const proxy = { heartbeat: now.toISOString(), pollInterval: 10 };
    expect(isProxyHealthy({ heartbeat: null, pollInterval: 10 }, now)).toBe(false);
    expect(isProxyHealthy(proxy, now)).toBe(true);
    expect(isProxyHealthy(proxy, at(29_999))).toBe(true);
    expect(isProxyHealthy(proxy, at(30_000))).toBe(false);
    expect(isProxyHealthy({ ...proxy, pollInterval: 300 }, at(899_999))).toBe(true);
  });
});

describe("readRootCa", () => {
  it("keeps the SHA-256 fingerprint of the DER and the expiry of a valid CA", async () => {
    const ca = await rootCa(now);
    const facts = readRootCa(ca.certificatePem, now);
    expect(facts.fingerprint).toBe(`SHA256:${new X509Certificate(ca.certificatePem).fingerprint256}`);
    expect(facts.expiresAt).toBe(ca.notAfter.toISOString());
  });

  it("refuses leaves, expired and not-yet-valid CAs, several blocks and anything that is not a certificate", async () => {
    const ca = await rootCa(now, DAY);
    const leaf = await issueCertificate({ issuer: "self-signed", subject: { commonName: "leaf" }, keyAlgorithm: "EC_prime256v1", basicConstraints: { isCA: false }, ttlMs: DAY, now });
    expect(() => readRootCa(leaf.certificatePem, now)).toThrow(/not a certificate authority/);
    expect(() => readRootCa(ca.certificatePem, new Date(now.getTime() + 2 * DAY))).toThrow(/expired/);
    expect(() => readRootCa(ca.certificatePem, new Date(now.getTime() - DAY))).toThrow(/not valid before/);
    expect(() => readRootCa(ca.certificatePem + ca.certificatePem, now)).toThrow(BadRequestError);
    expect(() => readRootCa(ca.privateKeyPem!, now)).toThrow(BadRequestError);
    expect(() => readRootCa("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----", now)).toThrow(BadRequestError);
    expect(() => readRootCa("", now)).toThrow(BadRequestError);
  });
});

forEachStore("enrollment", (store) => {
  let w: TestWorld;
  let strongroom: Strongroom;
  let admin: Actor;
  const clock = new ManualClock(now);

  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), clock });
    strongroom = w.sr;
    admin = w.admin;
  });
  afterAll(() => w?.close());

  it("lets exactly one of many concurrent enrollments consume the token", async () => {
    const { token, proxy } = await strongroom.agentProxies.create(admin, { name: "edge" });
    const ca = await rootCa(clock.now());
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => strongroom.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: ca.certificatePem })),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === "rejected" && (o.reason as { code?: string }).code === "UnauthorizedError")).toHaveLength(19);
    expect((won[0] as PromiseFulfilledResult<{ proxyId: string }>).value.proxyId).toBe(proxy.id);
  });

  it("keeps the token after a refused CA and lets it lapse after one hour", async () => {
    const { token } = await strongroom.agentProxies.create(admin, { name: "lapsing" });
    const leaf = await issueCertificate({ issuer: "self-signed", subject: { commonName: "leaf" }, keyAlgorithm: "EC_prime256v1", basicConstraints: { isCA: false }, ttlMs: DAY, now: clock.now() });
    await expect(strongroom.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: leaf.certificatePem })).rejects.toMatchObject({ code: "BadRequest" });
    clock.advance(60 * 60 * 1000);
    const ca = await rootCa(clock.now());
    await expect(strongroom.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: ca.certificatePem })).rejects.toMatchObject({ code: "UnauthorizedError" });
  });

  it("purges enrollment tokens a day after they lapse", async () => {
    const { proxy } = await strongroom.agentProxies.create(admin, { name: "purged" });
    const tokens = strongroom.context.storage.tables.agentProxyEnrollmentTokens;
    await purgeLapsedAgentRecords(strongroom.context, clock.now());
    expect(await tokens.count({ proxyId: proxy.id })).toBe(1);
    clock.advance(DAY + 60 * 60 * 1000 + 1);
    await purgeLapsedAgentRecords(strongroom.context, clock.now());
    expect(await tokens.count({ proxyId: proxy.id })).toBe(0);
  });
});
