import type { SessionRow } from "../tables.js";

export const toSession = (row: SessionRow) => ({ id: row.id, expiresAt: row.expiresAt, bundleId: row.bundleId });
