import { operations } from "@strongroom/core";
import { get, type Route } from "./route.js";

/**
 * The audit log on Infisical's path (its filters as query parameters), and the chain head a
 * verifier compares a copy with: `GET /api/v1/organization/audit-logs/head?chain=project:<id>`.
 */
export const auditRoutes: readonly Route[] = [
  get("/api/v1/organization/audit-logs", operations.audit.query),
  get("/api/v1/organization/audit-logs/head", operations.audit.head),
];
