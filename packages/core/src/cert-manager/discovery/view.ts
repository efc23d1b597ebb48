import type { DiscoveryJobRow } from "../tables.js";
import type { DiscoveryJobObject, ScanState } from "./schemas.js";

/** SPEC.md's discovery job; Strongroom has no gateways, so those ids are always null. */
export function toDiscoveryJobObject(row: DiscoveryJobRow): DiscoveryJobObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    discoveryType: "network",
    targetConfig: row.targetConfig,
    isAutoScanEnabled: row.isAutoScanEnabled,
    scanIntervalDays: row.scanIntervalDays,
    gatewayId: row.gatewayId,
    gatewayPoolId: row.gatewayPoolId,
    isActive: row.isActive,
    lastScanStatus: row.lastScanStatus as ScanState | null,
    lastScanJobId: row.lastScanJobId,
    lastScanMessage: row.lastScanMessage,
    lastScannedAt: row.lastScannedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
