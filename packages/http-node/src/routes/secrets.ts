import type { Route } from "./route.js";

/**
 * Secrets, folders, environments, tags and imports (DESIGN.md §5). The v3 `raw` routes are the
 * ones Infisical's official SDKs call and share operations with v4: inputs take the project as
 * `workspaceId` or `projectId`. Reads take everything from the query string; DELETE routes
 * accept their locating fields from the query too, for clients that send no body with DELETE.
 */

const project = ["projectId", "workspaceId", "projectSlug", "workspaceSlug"];
const location = [...project, "environment", "secretPath"];
const listQuery = [...location, "recursive", "tagSlugs", "include_imports", "includeImports", "viewSecretValue", "expandSecretReferences"];
const getQuery = [...location, "type", "version", "viewSecretValue", "include_imports", "includeImports", "expandSecretReferences"];
const deleteQuery = [...location, "type"];
const folderQuery = [...project, "environment", "path", "directory"];

/** The same operations under the raw v3 prefix and the v4 prefix. */
const singleSecretRoutes = (base: string): Route[] => [
  { method: "GET", path: base, operation: "secrets.list", query: listQuery },
  { method: "GET", path: `${base}/{secretName}`, operation: "secrets.get", query: getQuery },
  { method: "POST", path: `${base}/{secretName}`, operation: "secrets.create" },
  { method: "PATCH", path: `${base}/{secretName}`, operation: "secrets.update" },
  { method: "DELETE", path: `${base}/{secretName}`, operation: "secrets.delete", query: deleteQuery },
];

export const secretRoutes: readonly Route[] = [
  ...singleSecretRoutes("/api/v4/secrets"),
  ...singleSecretRoutes("/api/v3/secrets/raw"),
  { method: "POST", path: "/api/v4/secrets/batch", operation: "secrets.createMany" },
  { method: "PATCH", path: "/api/v4/secrets/batch", operation: "secrets.updateMany" },
  { method: "DELETE", path: "/api/v4/secrets/batch", operation: "secrets.deleteMany", query: location },
  { method: "POST", path: "/api/v3/secrets/tags/{secretName}", operation: "secrets.attachTags" },
  { method: "DELETE", path: "/api/v3/secrets/tags/{secretName}", operation: "secrets.detachTags" },

  { method: "POST", path: "/api/v1/workspace/{workspaceId}/environments", operation: "environments.create" },
  { method: "PATCH", path: "/api/v1/workspace/{workspaceId}/environments/{id}", operation: "environments.update" },
  { method: "DELETE", path: "/api/v1/workspace/{workspaceId}/environments/{id}", operation: "environments.delete" },

  { method: "POST", path: "/api/v1/folders", operation: "folders.create" },
  { method: "GET", path: "/api/v1/folders", operation: "folders.list", query: [...folderQuery, "recursive"] },
  { method: "DELETE", path: "/api/v1/folders", operation: "folders.delete", query: folderQuery },
  { method: "DELETE", path: "/api/v1/folders/{folderIdOrName}", operation: "folders.delete", query: folderQuery },

  { method: "POST", path: "/api/v1/workspace/{workspaceId}/tags", operation: "tags.create" },
  { method: "GET", path: "/api/v1/workspace/{workspaceId}/tags", operation: "tags.list" },
  { method: "DELETE", path: "/api/v1/workspace/{workspaceId}/tags/{tagId}", operation: "tags.delete" },

  { method: "POST", path: "/api/v1/secret-imports", operation: "secretImports.create" },
  { method: "GET", path: "/api/v1/secret-imports", operation: "secretImports.list", query: [...project, "environment", "path"] },
  { method: "DELETE", path: "/api/v1/secret-imports/{secretImportId}", operation: "secretImports.delete", query: project },
];
