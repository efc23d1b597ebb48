import type { ProjectRef } from "../access/project-access.js";
import { environmentScope, type EnvironmentScope, type ProjectTypeRule } from "../access/scope.js";
import type { Middleware } from "../kernel/operation.js";
import type { ProjectPermissionAction } from "../permissions/index.js";
import { requireFolder } from "../secret-manager/folders/tree.js";
import type { FolderRef } from "../secret-manager/secrets/model.js";

/** The permission subject of dynamic secrets and their leases (conditions: `environment`, `secretPath`). */
export const DYNAMIC_SECRETS_SUBJECT = "dynamic-secrets";
export type DynamicSecretAction = ProjectPermissionAction<"dynamic-secrets">;

const SECRET_MANAGER_PROJECT: ProjectTypeRule = {
  type: "secret-manager",
  refusal: (actual) => `Dynamic secrets live in secret-manager projects; this project's type is ${actual}`,
};

/** Where an input names a folder: Infisical's `projectSlug` (or id), `environmentSlug` and `path`. */
export interface FolderInput {
  readonly project: ProjectRef;
  readonly environmentSlug: string;
  readonly path: string;
}

export interface DynamicSecretFolderScope extends EnvironmentScope {
  readonly folder: FolderRef;
  /** What a `dynamic-secrets` check is made against. */
  readonly object: { environment: string; secretPath: string };
}

const folderEnvironment = environmentScope<FolderInput>({
  project: (input) => input.project,
  type: SECRET_MANAGER_PROJECT,
  environment: (input) => input.environmentSlug,
});

/**
 * A folder where the actor may do any of `actions` on dynamic secrets: 404 for an unknown
 * project, environment or folder, 400 for another project type, 403 naming the first action.
 */
export const dynamicSecretFolderScope =
  (...actions: [DynamicSecretAction, ...DynamicSecretAction[]]): Middleware<FolderInput, DynamicSecretFolderScope> =>
  async (ctx, actor, input) => {
    const scope = await folderEnvironment(ctx, actor, input);
    const folder = await requireFolder(ctx, scope.env, input.path);
    const object = { environment: scope.env.slug, secretPath: folder.path };
    if (!actions.some((action) => scope.access.can(action, DYNAMIC_SECRETS_SUBJECT, object))) {
      scope.access.require(actions[0], DYNAMIC_SECRETS_SUBJECT, object);
    }
    return { ...scope, folder, object };
  };
