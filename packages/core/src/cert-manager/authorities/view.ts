import type { KeyAlgorithm } from "../../x509/algorithms.js";
import type { CaRow } from "../tables.js";
import type { CertificateAuthorityObject } from "./schemas.js";

/** A CA as the API shows it: its certificate and chain, never its key. */
export function toCaObject(row: CaRow): CertificateAuthorityObject {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    type: row.type as CertificateAuthorityObject["type"],
    status: row.status as CertificateAuthorityObject["status"],
    commonName: row.commonName,
    keyAlgorithm: row.keyAlgorithm as KeyAlgorithm,
    certificate: row.certificatePem,
    certificateChain: row.certificateChain,
    serialNumber: row.serialNumber,
    notBefore: row.notBefore,
    notAfter: row.notAfter,
    parentCaId: row.parentCaId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
