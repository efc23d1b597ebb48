import { environmentScope, recordScope, type ProjectScope, type ProjectTypeRule } from "../../access/scope.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import { requireFolder } from "../../secret-manager/folders/tree.js";
import type { ServiceRow } from "../tables.js";
import { serviceLocation, servicePermissionObject, type ServiceLocation } from "./location.js";
import { serviceRepository } from "./repository.js";

/**
 * Where proxied services are acted on: a folder of a secret-manager project, or a service by id.
 * Either way the `proxied-services` check is made against the folder (environment and path).
 */

export type ServiceAction = "read" | "create" | "edit" | "delete";

/** Proxied services live in folders of secret-manager projects; a project of another type is a 400. */
export const SECRET_MANAGER_PROJECT: ProjectTypeRule = {
  type: "secret-manager",
  refusal: (actual) => `Proxied services live in secret-manager projects; this project's type is ${actual}`,
};

export interface FolderInput {
  projectId: string;
  environment: string;
  secretPath: string;
}

export interface ServiceFolderScope extends ProjectScope {
  readonly location: ServiceLocation;
}

export interface ServiceScope extends ServiceFolderScope {
  readonly service: ServiceRow;
}

const folderEnvironment = environmentScope<FolderInput>({
  project: (input) => ({ projectId: input.projectId }),
  type: SECRET_MANAGER_PROJECT,
  environment: (input) => input.environment,
});

/** A folder the actor may act on with `action`: 404 for an unknown project, environment or folder, 400 for another project type, 403. */
export const serviceFolderScope =
  (action: ServiceAction): Middleware<FolderInput, ServiceFolderScope> =>
  async (ctx, actor, input) => {
    const { access, project, env } = await folderEnvironment(ctx, actor, input);
    const location = { env, folder: await requireFolder(ctx, env, input.secretPath) };
    access.require(action, "proxied-services", servicePermissionObject(location));
    return { access, project, location };
  };

const NOT_FOUND = "Proxied service not found";

const serviceRecord = recordScope({
  what: "Proxied service",
  load: (ctx, input: { serviceId: string }) => ctx.repo(serviceRepository).byId(input.serviceId),
});

/** A service the actor may act on with `action`: 404 when it, its project or its folder is out of sight. */
export const serviceScope =
  (action: ServiceAction): Middleware<{ serviceId: string }, ServiceScope> =>
  async (ctx, actor, input) => {
    const { access, project, record: service } = await serviceRecord(ctx, actor, input);
    const location = await serviceLocation(ctx, service);
    if (!location) throw new NotFoundError(NOT_FOUND);
    access.require(action, "proxied-services", servicePermissionObject(location));
    return { access, project, service, location };
  };
