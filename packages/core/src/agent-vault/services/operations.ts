import { z } from "zod";
import { loadProjectAccess, type ProjectAccess } from "../../access/project-access.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { liveEnvironment } from "../../access/environments.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { requireFolder } from "../../secret-manager/folders/tree.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { AppStorage as Storage } from "../../schema.js";
import { validateCredentials } from "../brokering/credentials.js";
import { parseHostPatterns } from "../brokering/host-pattern.js";
import {
  credentialsOf,
  DEFINITION_ORDER,
  deleteServices,
  nextPosition,
  replaceCredentials,
  serviceLocation,
  servicePermissionObject,
  toServiceObject,
  type ServiceLocation,
  type ServiceRow,
} from "./repository.js";
import {
  createServiceInput,
  listServicesInput,
  proxiedServiceSchema,
  serviceOutput,
  serviceRefInput,
  updateServiceInput,
} from "./schemas.js";
import { checkCredentialSources } from "./credential-sources.js";

type Action = "read" | "create" | "edit" | "delete";

const NOT_FOUND = "Proxied service not found";

/** A folder of a secret-manager project the actor may act on with `action` (404 / 400 / 403). */
async function openFolder(
  ctx: Context,
  actor: Actor,
  where: { projectId: string; environment: string; secretPath: string },
  action: Action,
): Promise<{ access: ProjectAccess; location: ServiceLocation }> {
  const access = await loadProjectAccess(ctx, actor, { projectId: where.projectId });
  if (access.project.type !== "secret-manager") {
    throw new BadRequestError(`Proxied services live in secret-manager projects; this project's type is ${access.project.type}`);
  }
  const env = await liveEnvironment(ctx, access.project.id, where.environment);
  const location = { env, folder: await requireFolder(ctx, env, where.secretPath) };
  access.require(action, "proxied-services", servicePermissionObject(location));
  return { access, location };
}

/** A service the actor may act on with `action`: 404 when it, its project or its folder is out of sight. */
async function openService(ctx: Context, actor: Actor, serviceId: string, action: Action) {
  const service = await ctx.storage.tables.proxiedServices.get(serviceId);
  if (!service) throw new NotFoundError(NOT_FOUND);
  const access = await loadProjectAccess(ctx, actor, { projectId: service.projectId }).catch((error) => {
    throw error instanceof NotFoundError ? new NotFoundError(NOT_FOUND) : error;
  });
  const location = await serviceLocation(ctx.storage, service);
  if (!location) throw new NotFoundError(NOT_FOUND);
  access.require(action, "proxied-services", servicePermissionObject(location));
  return { service, access, location };
}

async function assertNameFree(storage: Storage, location: ServiceLocation, name: string): Promise<void> {
  if (await storage.tables.proxiedServices.findOne({ folderId: location.folder.id, name })) {
    throw new BadRequestError(`A proxied service named '${name}' already exists in ${location.env.slug}:${location.folder.path}`);
  }
}

async function present(storage: Storage, serviceId: string) {
  const service = await storage.tables.proxiedServices.get(serviceId);
  if (!service) throw new NotFoundError(NOT_FOUND);
  const credentials = await credentialsOf(storage, [service.id]);
  return toServiceObject(service, credentials.get(service.id)!);
}

export const proxiedServiceOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Create a proxied service in a folder of a secret-manager project: host patterns mapped to credentials whose values come " +
      "from secrets of that folder. The caller must be allowed to read those values.",
    audience: "principal",
    input: createServiceInput,
    output: serviceOutput,
    async run(ctx, actor, input) {
      const { access, location } = await openFolder(ctx, actor, input, "create");
      parseHostPatterns(input.hostPattern);
      const definitions = validateCredentials(input.credentials);
      await checkCredentialSources(ctx, access, location, definitions);
      await assertNameFree(ctx.storage, location, input.name);
      const now = ctx.clock.now().toISOString();
      const service = await ctx.storage.transaction(async (tx) => {
        const row: ServiceRow = {
          id: newId(),
          orgId: access.project.orgId,
          projectId: access.project.id,
          envId: location.env.id,
          folderId: location.folder.id,
          position: await nextPosition(tx, access.project.orgId),
          name: input.name,
          hostPattern: input.hostPattern,
          isEnabled: input.isEnabled,
          lastUsedAt: null,
          createdAt: now,
          updatedAt: now,
        };
        await tx.tables.proxiedServices.insert(row);
        await replaceCredentials(tx, row.id, definitions, now);
        return row;
      });
      return { service: await present(ctx.storage, service.id) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the proxied services of one folder, in the order they were defined",
    audience: "principal",
    input: listServicesInput,
    output: z.object({ services: z.array(proxiedServiceSchema) }),
    async run(ctx, actor, input) {
      const { location } = await openFolder(ctx, actor, input, "read");
      const rows = await ctx.storage.tables.proxiedServices.find({ folderId: location.folder.id }, DEFINITION_ORDER);
      const credentials = await credentialsOf(ctx.storage, rows.map((row) => row.id));
      return { services: rows.map((row) => toServiceObject(row, credentials.get(row.id)!)) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a proxied service",
    audience: "principal",
    input: serviceRefInput,
    output: serviceOutput,
    async run(ctx, actor, input) {
      const { service } = await openService(ctx, actor, input.serviceId, "read");
      return { service: await present(ctx.storage, service.id) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a proxied service. `credentials`, when present, replaces the whole collection in one transaction; when absent, it is kept.",
    audience: "principal",
    input: updateServiceInput,
    output: serviceOutput,
    async run(ctx, actor, input) {
      const { service, access, location } = await openService(ctx, actor, input.serviceId, "edit");
      if (input.hostPattern !== undefined) parseHostPatterns(input.hostPattern);
      const definitions = input.credentials && validateCredentials(input.credentials);
      if (definitions) await checkCredentialSources(ctx, access, location, definitions);
      if (input.name !== undefined && input.name !== service.name) await assertNameFree(ctx.storage, location, input.name);
      const now = ctx.clock.now().toISOString();
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.proxiedServices.update(
          { id: service.id },
          {
            name: input.name ?? service.name,
            hostPattern: input.hostPattern ?? service.hostPattern,
            isEnabled: input.isEnabled ?? service.isEnabled,
            updatedAt: now,
          },
        );
        if (definitions) await replaceCredentials(tx, service.id, definitions, now);
      });
      return { service: await present(ctx.storage, service.id) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a proxied service; access bundles that held it no longer do",
    audience: "principal",
    input: serviceRefInput,
    output: serviceOutput,
    async run(ctx, actor, input) {
      const { service } = await openService(ctx, actor, input.serviceId, "delete");
      const shown = await present(ctx.storage, service.id);
      await ctx.storage.transaction((tx) => deleteServices(tx, [service], ctx.clock.now().toISOString()));
      return { service: shown };
    },
  }),
};
