import type { ProjectRef } from "../access/project-access.js";
import { environmentScope, projectScope, type EnvironmentScope } from "../access/scope.js";
import type { Middleware } from "../kernel/operation.js";
import { projectCipher, type ProjectCipher } from "./cipher.js";

/**
 * The secret manager's scopes: the access layer's middlewares, for project members only (an
 * outsider learns nothing, not even which names exist), the project named as `projectScoped`
 * inputs name it.
 */

/** An input naming an environment of a project by slug. */
export interface EnvironmentInput {
  readonly project: ProjectRef;
  readonly environment: string;
}

export const memberProjectScope = projectScope<{ project: ProjectRef }>({ project: (input) => input.project, membership: true });

/** Unknown and soft-deleted environments are 404. */
export const memberEnvironmentScope = environmentScope<EnvironmentInput>({
  project: (input) => input.project,
  environment: (input) => input.environment,
  membership: true,
});

/** An environment scope with the project's data key in use: what operations that open secrets work in. */
export interface SecretScope extends EnvironmentScope {
  readonly cipher: ProjectCipher;
}

export const secretScope: Middleware<EnvironmentInput, SecretScope> = async (ctx, actor, input) => {
  const scope = await memberEnvironmentScope(ctx, actor, input);
  return { ...scope, cipher: await projectCipher(ctx, scope.project) };
};
