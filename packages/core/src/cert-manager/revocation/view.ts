import type { CrlRow } from "../tables.js";

export const toCrlObject = (row: CrlRow) => ({
  id: row.id,
  caId: row.caId,
  crl: row.crlPem,
  crlNumber: row.number,
  revokedCount: row.revokedCount,
  thisUpdate: row.thisUpdate,
  nextUpdate: row.nextUpdate,
});
