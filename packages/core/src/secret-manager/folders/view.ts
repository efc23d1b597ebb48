import type { EnvironmentRow } from "../../access/tables.js";
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

export const toFolderDetail = (f: FolderRow, env: EnvironmentRow) => ({
  ...toFolder(f),
  projectId: f.projectId,
  environment: { envId: env.id, envName: env.name, envSlug: env.slug },
});
