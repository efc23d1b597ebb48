import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/**
 * Dynamic secrets and their leases on Infisical's paths (what `@infisical/sdk`'s
 * `dynamicSecrets()` client calls): secrets by name within project, environment and path; leases
 * by id. `/leases…` rows are literal, so they win over `/{name}`.
 */
const base = "/api/v1/dynamic-secrets";
const lease = `${base}/leases/{leaseId}`;
const ds = operations.dynamicSecrets;

export const dynamicSecretRoutes: readonly Route[] = [
  post(base, ds.create),
  get(base, ds.list),
  get(`${base}/{name}`, ds.get),
  patch(`${base}/{name}`, ds.update),
  del(`${base}/{name}`, ds.delete),
  get(`${base}/{name}/leases`, ds.listLeases),

  post(`${base}/leases`, ds.createLease),
  get(lease, ds.getLease),
  del(lease, ds.revokeLease),
  post(`${lease}/renew`, ds.renewLease),
];
