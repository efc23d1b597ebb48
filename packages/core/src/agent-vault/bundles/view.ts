import type { BundleRow } from "../tables.js";
import type { AccessBundleObject } from "./schemas.js";

export function toBundleObject(bundle: BundleRow): AccessBundleObject {
  return {
    id: bundle.id,
    projectId: bundle.projectId,
    name: bundle.name,
    description: bundle.description,
    serviceIds: bundle.serviceIds,
    grants: bundle.grants,
    createdAt: bundle.createdAt,
    updatedAt: bundle.updatedAt,
  };
}
