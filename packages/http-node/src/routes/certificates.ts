import type { Route } from "./route.js";

/**
 * The certificate manager (SPEC.md "Certificate manager", DESIGN.md §8): internal CAs, profiles,
 * issuance, discovery jobs and scans, installations and alerts.
 */

const base = "/api/v1/cert-manager";
const cas = `${base}/ca/internal`;
const profiles = `${base}/certificate-profiles`;
const certificates = `${base}/certificates`;
const jobs = `${base}/discovery-jobs`;
const installations = `${base}/installations`;
const alerts = `${base}/alerts`;
const page = ["projectId", "offset", "limit", "search"] as const;

export const certificateRoutes: readonly Route[] = [
  { method: "POST", path: cas, operation: "certificateAuthorities.create" },
  { method: "GET", path: cas, operation: "certificateAuthorities.list", query: ["projectId"] },
  { method: "GET", path: `${cas}/{caId}`, operation: "certificateAuthorities.get" },

  { method: "POST", path: profiles, operation: "certificateProfiles.create" },
  { method: "GET", path: profiles, operation: "certificateProfiles.list", query: page },
  { method: "GET", path: `${profiles}/{id}`, operation: "certificateProfiles.get" },
  { method: "PATCH", path: `${profiles}/{id}`, operation: "certificateProfiles.update" },
  { method: "DELETE", path: `${profiles}/{id}`, operation: "certificateProfiles.delete" },

  { method: "POST", path: certificates, operation: "certificates.issue" },
  { method: "GET", path: certificates, operation: "certificates.list", query: [...page, "source"] },
  { method: "GET", path: `${certificates}/{certificateId}`, operation: "certificates.get" },

  { method: "POST", path: jobs, operation: "discovery.create" },
  { method: "GET", path: jobs, operation: "discovery.list", query: page },
  { method: "GET", path: `${jobs}/{id}`, operation: "discovery.get" },
  { method: "PATCH", path: `${jobs}/{id}`, operation: "discovery.update" },
  { method: "DELETE", path: `${jobs}/{id}`, operation: "discovery.delete" },
  { method: "POST", path: `${jobs}/{id}/scan`, operation: "discovery.scan", status: 202 },

  { method: "GET", path: installations, operation: "installations.list", query: [...page, "discoveryId", "certificateId"] },
  { method: "GET", path: `${installations}/{installationId}`, operation: "installations.get" },

  { method: "POST", path: alerts, operation: "alerts.create" },
  { method: "GET", path: alerts, operation: "alerts.list", query: page },
  { method: "GET", path: `${alerts}/{alertId}`, operation: "alerts.get" },
  { method: "PATCH", path: `${alerts}/{alertId}`, operation: "alerts.update" },
  { method: "DELETE", path: `${alerts}/{alertId}`, operation: "alerts.delete" },
  { method: "POST", path: `${alerts}/{alertId}/evaluate`, operation: "alerts.evaluate" },
];
