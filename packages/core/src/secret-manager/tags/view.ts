import type { TagRow } from "../tables.js";

export const toTag = (t: TagRow) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  color: t.color,
  projectId: t.projectId,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});
