import { isIP } from "node:net";
import { createSecureContext, type SecureContext } from "node:tls";
import type { ProxyCa } from "./certificate-authority.js";
import { CLOCK_SKEW_MS } from "./certificate-authority.js";
import { issueCertificate } from "@strongroom/core/x509";

/**
 * The certificates the proxy presents to agents, one per intercepted host, signed by its CA. A
 * leaf costs a key generation and a signature, so each is kept (as a ready TLS context) until it
 * nears expiry, in a bounded least-recently-used map; concurrent first requests for one host share
 * one issuance.
 */
export interface LeafOptions {
  /** Lifetime of a leaf; short, since leaves are never revoked. Default 7 days. */
  lifetimeMs?: number;
  /** A cached leaf with less than this left is issued again. Default 1 day. */
  renewBeforeMs?: number;
  /** Hosts kept. Default 1000. */
  capacity?: number;
  now?: () => Date;
}

interface Leaf {
  readonly context: SecureContext;
  readonly notAfter: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// X.520 caps commonName at 64 characters; longer host names are named by the SAN alone.
const MAX_COMMON_NAME = 64;

export class LeafCertificates {
  readonly #ca: ProxyCa;
  readonly #lifetimeMs: number;
  readonly #renewBeforeMs: number;
  readonly #capacity: number;
  readonly #now: () => Date;
  readonly #leaves = new Map<string, Promise<Leaf>>();

  constructor(ca: ProxyCa, options: LeafOptions = {}) {
    this.#ca = ca;
    this.#lifetimeMs = options.lifetimeMs ?? 7 * DAY_MS;
    this.#renewBeforeMs = options.renewBeforeMs ?? DAY_MS;
    this.#capacity = options.capacity ?? 1000;
    this.#now = options.now ?? (() => new Date());
  }

  get size(): number {
    return this.#leaves.size;
  }

  /** `host` is canonical (lower case; IPv6 without brackets). */
  async contextFor(host: string): Promise<SecureContext> {
    const cached = this.#leaves.get(host);
    if (cached) {
      const leaf = await cached;
      if (leaf.notAfter.getTime() - this.#now().getTime() > this.#renewBeforeMs) {
        this.#touch(host, cached);
        return leaf.context;
      }
      if (this.#leaves.get(host) === cached) this.#leaves.delete(host);
    }
    const pending = this.#leaves.get(host) ?? this.#issue(host);
    this.#touch(host, pending);
    return (await pending).context;
  }

  #touch(host: string, leaf: Promise<Leaf>): void {
    this.#leaves.delete(host);
    this.#leaves.set(host, leaf);
    if (this.#leaves.size > this.#capacity) this.#leaves.delete(this.#leaves.keys().next().value!);
  }

  #issue(host: string): Promise<Leaf> {
    const pending = this.#sign(host);
    pending.catch(() => {
      if (this.#leaves.get(host) === pending) this.#leaves.delete(host);
    });
    return pending;
  }

  async #sign(host: string): Promise<Leaf> {
    const now = this.#now().getTime();
    const notBefore = Math.max(now - CLOCK_SKEW_MS, this.#ca.notBefore.getTime());
    const notAfter = Math.min(now + this.#lifetimeMs, this.#ca.notAfter.getTime());
    const issued = await issueCertificate({
      issuer: this.#ca.issuer,
      keyAlgorithm: "EC_prime256v1",
      subject: host.length <= MAX_COMMON_NAME ? { commonName: host } : {},
      subjectAltNames: [{ type: isIP(host) ? "ip_address" : "dns_name", value: host }],
      keyUsages: ["digital_signature"],
      extendedKeyUsages: ["server_auth"],
      now: new Date(notBefore),
      ttlMs: notAfter - notBefore,
    });
    const context = createSecureContext({ key: issued.privateKeyPem!, cert: issued.certificatePem, minVersion: "TLSv1.2" });
    return { context, notAfter: issued.notAfter };
  }
}
