import { X509Certificate } from "node:crypto";
import forge from "node-forge";
import { tablesByArea, type TableName } from "@strongroom/core/storage";
import type { TestApi } from "./harness.js";

/** Shared set-up of the agent-vault API suites: certificates a proxy enrolls with, and registration. */

const DAY = 24 * 60 * 60 * 1000;

// One key signs every test certificate: generating a key per certificate would only slow the suites down.
let keys: forge.pki.rsa.KeyPair | undefined;

export interface CertificateOptions {
  isCA?: boolean;
  notBefore?: Date;
  notAfter?: Date;
}

/** A self-signed certificate (a CA unless `isCA: false`), valid from a day ago for a year unless told otherwise. */
export function selfSignedPem(now: Date, options: CertificateOptions = {}): string {
  keys ??= forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const isCA = options.isCA ?? true;
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  certificate.validity.notBefore = options.notBefore ?? new Date(now.getTime() - DAY);
  certificate.validity.notAfter = options.notAfter ?? new Date(now.getTime() + 365 * DAY);
  const name = [{ name: "commonName", value: isCA ? "Agent Proxy Test CA" : "leaf.example.test" }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([{ name: "basicConstraints", cA: isCA, critical: true }]);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(certificate);
}

/** `SHA256:AB:CD:…` over the DER, as OpenSSL (through node:crypto) computes it. */
export const expectedFingerprint = (pem: string): string => `SHA256:${new X509Certificate(pem).fingerprint256}`;

/** A valid DNS host name of exactly `length` (7 to 253) characters: labels of at most 63 under `.test`. */
export function hostOfLength(length: number): string {
  const labels: string[] = [];
  let left = length - ".test".length;
  while (left > 0) {
    const size = Math.min(63, left === 64 ? 62 : left);
    labels.push("h".repeat(size));
    left -= size + 1;
  }
  const host = `${labels.join(".")}.test`;
  if (host.length !== length) throw new Error(`built a host of ${host.length} characters, wanted ${length}`);
  return host;
}

/** A valid comma-separated host-pattern list of exactly `length` characters. */
export function hostListOfLength(length: number): string {
  const items: string[] = [];
  let left = length;
  while (left > 200) {
    const item = hostOfLength(150);
    items.push(item);
    left -= item.length + 1;
  }
  items.push(hostOfLength(left));
  return items.join(",");
}

export interface RegisteredProxy {
  id: string;
  token: string;
  expiresAt: string;
  proxy: Record<string, unknown>;
}

export async function registerProxy(api: TestApi, adminToken: string, body: Record<string, unknown> = {}): Promise<RegisteredProxy> {
  const res = await api.request("POST", "/api/v1/agent-vault/proxies", { token: adminToken, body: { name: "edge-proxy", ...body } });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.proxy.id, token: res.body.token, expiresAt: res.body.expiresAt, proxy: res.body.proxy };
}

/** Registers and enrolls a proxy; returns its id and access token. */
export async function enrolledProxy(api: TestApi, adminToken: string, body: Record<string, unknown> = {}) {
  const registered = await registerProxy(api, adminToken, body);
  const rootCaCertificate = selfSignedPem(api.clock.now());
  const res = await api.request("POST", "/api/v1/agent-vault/proxy/enroll", { body: { enrollmentToken: registered.token, rootCaCertificate } });
  if (res.status !== 200) throw new Error(`enroll failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: registered.id, accessToken: res.body.accessToken as string, enrollmentToken: registered.token };
}

/** Every stored row of the agent-proxy tables and of the access tokens, as one text to search. */
export async function storedAgentRows(api: TestApi): Promise<string> {
  const tables = api.strongroom.context.storage.tables;
  const names = [...(Object.keys(tablesByArea.agentVault) as TableName[]), "accessTokens" as const];
  const rows = await Promise.all(names.map((name) => tables[name].find()));
  return JSON.stringify(rows);
}
