/**
 * TLS discovery: one handshake per target, reporting the certificates the server presents.
 * Verification is off on purpose (`rejectUnauthorized: false`): discovery's job is to find
 * expired, self-signed and otherwise broken certificates, which verification would hide.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type DetailedPeerCertificate, type TLSSocket, connect } from "node:tls";
import { parseCertificate } from "../../x509/certificate-reader.js";
import { derToPem } from "../../x509/pem.js";
import type { ScanOptions, ScanResult, ScanTarget, ScannedCertificate, TlsScanner } from "../ports.js";

const defaultResolve = async (hostname: string): Promise<string> => (await lookup(hostname)).address;

/** The peer's chain as sent: node links each certificate to its issuer and the root to itself. */
function peerChain(socket: TLSSocket): Buffer[] {
  const chain: Buffer[] = [];
  const seen = new Set<string>();
  let cert = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(cert.raw);
    cert = cert.issuerCertificate;
  }
  return chain;
}

function describeCertificate(der: Buffer): ScannedCertificate {
  return { ...parseCertificate(der), pem: derToPem(der, "CERTIFICATE") };
}

const TIMEOUT_CODES = new Set(["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

type Outcome = Pick<ScanResult, "status" | "certificates" | "message">;

function handshake(address: string, target: ScanTarget, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let socket: TLSSocket | undefined;
    let settled = false;
    const finish = (result: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(result);
    };
    // A server that accepts TCP and then says nothing must not hold a worker forever.
    const timer = setTimeout(() => finish({ status: "timeout", certificates: [], message: `No TLS handshake within ${timeoutMs} ms` }), timeoutMs);
    try {
      socket = connect({
        host: address,
        port: target.port,
        // SNI may not carry an IP address (RFC 6066 §3).
        ...(target.servername && !isIP(target.servername) ? { servername: target.servername } : {}),
        rejectUnauthorized: false,
      });
    } catch (error) {
      finish({ status: "error", certificates: [], message: `Could not connect: ${(error as Error).message}` });
      return;
    }
    socket.once("secureConnect", () => {
      try {
        const certificates = peerChain(socket!).map(describeCertificate);
        if (certificates.length === 0) finish({ status: "error", certificates, message: "The server presented no certificate" });
        else finish({ status: "ok", certificates, message: `TLS handshake completed (${socket!.getProtocol() ?? "TLS"})` });
      } catch (error) {
        finish({ status: "error", certificates: [], message: `Unreadable certificate: ${(error as Error).message}` });
      }
    });
    // `on`, not `once`: a second error after the first must still find a listener, not crash the process.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      if (code === "ECONNREFUSED") finish({ status: "closed", certificates: [], message: `Connection refused (${code})` });
      else if (TIMEOUT_CODES.has(code)) finish({ status: "timeout", certificates: [], message: `Unreachable (${code})` });
      else finish({ status: "error", certificates: [], message: `TLS handshake failed: ${error.message}` });
    });
    socket.once("close", () => finish({ status: "error", certificates: [], message: "The connection closed before the handshake completed" }));
  });
}

const TIMED_OUT = Symbol("timed out");

/** A slow resolver must not outlast the per-target limit any more than a silent server may. */
function withTimeout<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  return Promise.race([pending, expiry]).finally(() => clearTimeout(timer));
}

async function scanOne(
  target: ScanTarget,
  timeoutMs: number,
  resolveOnce: (hostname: string) => Promise<string>,
  refuseAddress: ScanOptions["refuseAddress"],
): Promise<ScanResult> {
  let address: string;
  try {
    address = isIP(target.host) ? target.host : await withTimeout(resolveOnce(target.host), timeoutMs);
  } catch (error) {
    if (error === TIMED_OUT) return { ...target, status: "timeout", certificates: [], message: `No DNS answer for ${target.host} within ${timeoutMs} ms` };
    return { ...target, status: "error", certificates: [], message: `Could not resolve ${target.host}: ${(error as Error).message}` };
  }
  const refusal = refuseAddress?.(address);
  if (refusal) return { ...target, status: "error", certificates: [], message: `Refused to connect to ${address}: ${refusal}` };
  return { ...target, address, ...(await handshake(address, target, timeoutMs)) };
}

/**
 * Scans every target with at most `concurrency` handshakes in flight; results come back in
 * target order. Each domain is resolved once per scan and the resolved address is what is dialled
 * and checked (no second lookup an attacker's DNS could answer differently).
 */
export async function scanTargets(targets: ScanTarget[], options: ScanOptions = {}): Promise<ScanResult[]> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  const timeoutMs = options.timeoutMs ?? 5000;
  const resolve = options.resolve ?? defaultResolve;
  const resolutions = new Map<string, Promise<string>>();
  const resolveOnce = (hostname: string) => {
    const key = hostname.toLowerCase();
    let pending = resolutions.get(key);
    if (!pending) resolutions.set(key, (pending = resolve(hostname)));
    return pending;
  };
  const results = new Array<ScanResult>(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const index = next++;
      results[index] = await scanOne(targets[index]!, timeoutMs, resolveOnce, options.refuseAddress);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  return results;
}

/** The TLS scanner an instance uses unless given another. */
export const nodeTlsScanner: TlsScanner = { scan: scanTargets };
