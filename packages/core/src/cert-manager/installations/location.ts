/** Where a TLS endpoint is, as installations record it. Pure. */
import { hash } from "node:crypto";
import type { ScanResult } from "../ports.js";

/** The scanned host (domain or IP literal) and port, and the address dialled. */
export interface NetworkLocation {
  host: string;
  ipAddress: string | null;
  port: number;
}

export const locationOfResult = (result: ScanResult): NetworkLocation => ({
  host: (result.servername ?? result.host).toLowerCase(),
  ipAddress: result.address ?? null,
  port: result.port,
});

/** Stable across scans and jobs: the same host and port is the same installation. */
export const locationFingerprint = (location: NetworkLocation): string =>
  hash("sha256", `network|tls|${location.host}|${location.port}`, "hex");

/** SPEC.md leaves the shape open: `{fqdn | ipAddress, port, protocol}`, plus the resolved `ipAddress` for a domain. */
export function locationDetails(location: NetworkLocation, isDomain: boolean): Record<string, unknown> {
  return isDomain
    ? { fqdn: location.host, ...(location.ipAddress ? { ipAddress: location.ipAddress } : {}), port: location.port, protocol: "tls" }
    : { ipAddress: location.host, port: location.port, protocol: "tls" };
}
