import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

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

export const certificateRoutes: readonly Route[] = [
  post(cas, operations.certificateAuthorities.create),
  get(cas, operations.certificateAuthorities.list),
  get(`${cas}/{caId}`, operations.certificateAuthorities.get),
  get(`${cas}/{caId}/crls`, operations.certificateRevocation.listCrls),
  // Public, as CRL distribution points are (Infisical's path).
  get("/api/v1/pki/crl/{crlId}/der", operations.certificateRevocation.downloadCrl, { kind: "file" }),

  post(profiles, operations.certificateProfiles.create),
  get(profiles, operations.certificateProfiles.list),
  get(`${profiles}/{id}`, operations.certificateProfiles.get),
  get(`${profiles}/slug/{slug}`, operations.certificateProfiles.getBySlug),
  get(`${profiles}/{id}/certificates`, operations.certificates.listByProfile),
  patch(`${profiles}/{id}`, operations.certificateProfiles.update),
  del(`${profiles}/{id}`, operations.certificateProfiles.delete),

  post(certificates, operations.certificates.issue),
  get(certificates, operations.certificates.list),
  get(`${certificates}/{certificateId}`, operations.certificates.get),
  post(`${certificates}/{certificateId}/renew`, operations.certificates.renew),
  post(`${certificates}/{certificateId}/revoke`, operations.certificates.revoke),
  get("/api/v2/workspace/{slug}/certificates", operations.certificates.listByProject),

  post(jobs, operations.discovery.create),
  get(jobs, operations.discovery.list),
  get(`${jobs}/{id}`, operations.discovery.get),
  patch(`${jobs}/{id}`, operations.discovery.update),
  del(`${jobs}/{id}`, operations.discovery.delete),
  post(`${jobs}/{id}/scan`, operations.discovery.scan, { status: 202 }),

  get(installations, operations.installations.list),
  get(`${installations}/{installationId}`, operations.installations.get),

  post(alerts, operations.alerts.create),
  get(alerts, operations.alerts.list),
  get(`${alerts}/{alertId}`, operations.alerts.get),
  patch(`${alerts}/{alertId}`, operations.alerts.update),
  del(`${alerts}/{alertId}`, operations.alerts.delete),
  post(`${alerts}/{alertId}/evaluate`, operations.alerts.evaluate),
];
