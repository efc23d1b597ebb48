import type { ProfileRow } from "../tables.js";
import type { CertificateProfileObject } from "./schemas.js";

/** SPEC.md's profile object; the enrollment and policy ids Strongroom has no use for are null. */
export function toProfileObject(row: ProfileRow): CertificateProfileObject {
  return {
    id: row.id,
    certificatePolicyId: null,
    caId: row.caId,
    estConfigId: null,
    apiConfigId: null,
    acmeConfigId: null,
    scepConfigId: null,
    slug: row.slug,
    description: row.description,
    enrollmentType: row.enrollmentType as CertificateProfileObject["enrollmentType"],
    issuerType: row.issuerType as CertificateProfileObject["issuerType"],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    externalConfigs: row.externalConfigs,
    defaults: row.defaults,
  };
}
