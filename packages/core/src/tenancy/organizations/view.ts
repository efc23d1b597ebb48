import type { OrganizationRow } from "../tables.js";

export const toOrganization = (o: OrganizationRow) => ({ id: o.id, name: o.name, slug: o.slug, createdAt: o.createdAt });
