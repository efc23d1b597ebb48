import type { FolderRow } from "../tables.js";

export const toFolder = (f: FolderRow) => ({
  id: f.id,
  name: f.name,
  description: f.description,
  parentId: f.parentId,
  envId: f.envId,
  path: f.path,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});
