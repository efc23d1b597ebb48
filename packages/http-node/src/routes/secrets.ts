import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/**
 * Secrets, folders, environments, tags and imports (DESIGN.md §5). The v3 `raw` routes are the
 * ones Infisical's official SDKs call and share operations with v4: inputs take the project as
 * `workspaceId` or `projectId`. Reads take everything from the query string; DELETE routes
 * accept their locating fields from the query too, for clients that send no body with DELETE.
 */

/** The same operations under the raw v3 prefix and the v4 prefix. */
const singleSecretRoutes = (base: string): Route[] => [
  get(base, operations.secrets.list, { etag: true }),
  get(`${base}/{secretName}`, operations.secrets.get),
  post(`${base}/{secretName}`, operations.secrets.create),
  patch(`${base}/{secretName}`, operations.secrets.update),
  del(`${base}/{secretName}`, operations.secrets.delete),
];

export const secretRoutes: readonly Route[] = [
  ...singleSecretRoutes("/api/v4/secrets"),
  ...singleSecretRoutes("/api/v3/secrets/raw"),
  post("/api/v4/secrets/batch", operations.secrets.createMany),
  patch("/api/v4/secrets/batch", operations.secrets.updateMany),
  del("/api/v4/secrets/batch", operations.secrets.deleteMany),
  get("/api/v1/secret/{secretId}/secret-versions", operations.secrets.listVersions),
  post("/api/v1/secret/{secretId}/secret-versions/rollback", operations.secrets.rollback),
  post("/api/v3/secrets/tags/{secretName}", operations.secrets.attachTags),
  del("/api/v3/secrets/tags/{secretName}", operations.secrets.detachTags),

  get("/api/v1/workspace/{workspaceId}/environments", operations.environments.list),
  get("/api/v1/projects/{projectId}/environments", operations.environments.list),
  get("/api/v1/workspace/{workspaceId}/environments/{id}", operations.environments.get),
  get("/api/v1/projects/{projectId}/environments/{id}", operations.environments.get),
  post("/api/v1/workspace/{workspaceId}/environments", operations.environments.create),
  patch("/api/v1/workspace/{workspaceId}/environments/{id}", operations.environments.update),
  del("/api/v1/workspace/{workspaceId}/environments/{id}", operations.environments.delete),

  post("/api/v1/folders", operations.folders.create),
  get("/api/v1/folders", operations.folders.list),
  get("/api/v1/folders/{id}", operations.folders.get),
  patch("/api/v1/folders/{folderId}", operations.folders.update),
  del("/api/v1/folders", operations.folders.delete),
  del("/api/v1/folders/{folderIdOrName}", operations.folders.delete),

  post("/api/v1/workspace/{workspaceId}/tags", operations.tags.create),
  get("/api/v1/workspace/{workspaceId}/tags", operations.tags.list),
  del("/api/v1/workspace/{workspaceId}/tags/{tagId}", operations.tags.delete),

  post("/api/v1/secret-imports", operations.secretImports.create),
  get("/api/v1/secret-imports", operations.secretImports.list),
  patch("/api/v1/secret-imports/{secretImportId}", operations.secretImports.update),
  del("/api/v1/secret-imports/{secretImportId}", operations.secretImports.delete),
];
