import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import type { Context } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { validateCredentials } from "../brokering/credentials.js";
import { parseHostPatterns } from "../brokering/host-pattern.js";
import { checkCredentialSources, requireCredentialReads } from "./credential-sources.js";
import type { ServiceLocation } from "./location.js";
import { redirects } from "./redirects.js";
import { serviceRepository } from "./repository.js";
import {
  createServiceInput,
  listServicesInput,
  proxiedServiceSchema,
  serviceOutput,
  serviceRefInput,
  updateServiceInput,
} from "./schemas.js";
import { serviceFolderScope, serviceScope } from "./scope.js";
import { toServiceObject } from "./view.js";

async function assertNameFree(ctx: Context, location: ServiceLocation, name: string): Promise<void> {
  if (await ctx.repo(serviceRepository).byName(location.folder.id, name)) {
    throw new BadRequestError(`A proxied service named '${name}' already exists in ${location.env.slug}:${location.folder.path}`);
  }
}

async function present(ctx: Context, serviceId: string) {
  const services = ctx.repo(serviceRepository);
  const service = await services.byId(serviceId);
  if (!service) throw new NotFoundError("Proxied service not found");
  const credentials = await services.credentialsOf([service.id]);
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
    use: serviceFolderScope("create"),
    async run(ctx, _actor, input, { access, project, location }) {
      parseHostPatterns(input.hostPattern);
      const definitions = validateCredentials(input.credentials);
      await checkCredentialSources(ctx, access, location, definitions);
      await assertNameFree(ctx, location, input.name);
      const now = ctx.clock.now().toISOString();
      const service = await ctx.repo(serviceRepository).create(
        {
          id: newId(),
          orgId: project.orgId,
          projectId: project.id,
          envId: location.env.id,
          folderId: location.folder.id,
          name: input.name,
          hostPattern: input.hostPattern,
          isEnabled: input.isEnabled,
          lastUsedAt: null,
          createdAt: now,
          updatedAt: now,
        },
        definitions,
      );
      return { service: await present(ctx, service.id) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the proxied services of one folder, in the order they were defined",
    audience: "principal",
    input: listServicesInput,
    output: z.object({ services: z.array(proxiedServiceSchema) }),
    use: serviceFolderScope("read"),
    async run(ctx, _actor, _input, { location }) {
      const services = ctx.repo(serviceRepository);
      const rows = await services.inFolder(location.folder.id);
      const credentials = await services.credentialsOf(rows.map((row) => row.id));
      return { services: rows.map((row) => toServiceObject(row, credentials.get(row.id)!)) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a proxied service",
    audience: "principal",
    input: serviceRefInput,
    output: serviceOutput,
    use: serviceScope("read"),
    async run(ctx, _actor, _input, { service }) {
      return { service: await present(ctx, service.id) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a proxied service. `credentials`, when present, replaces the whole collection in one transaction; when absent, it is kept.",
    audience: "principal",
    input: updateServiceInput,
    output: serviceOutput,
    use: serviceScope("edit"),
    async run(ctx, _actor, input, { service, access, location }) {
      if (input.hostPattern !== undefined) parseHostPatterns(input.hostPattern);
      const definitions = input.credentials && validateCredentials(input.credentials);
      if (definitions) await checkCredentialSources(ctx, access, location, definitions);
      else if (redirects(service, input)) {
        // The credentials stay, but where they go changes: as strong as reading them.
        const kept = (await ctx.repo(serviceRepository).credentialsOf([service.id])).get(service.id) ?? [];
        await requireCredentialReads(ctx, access, location, kept);
      }
      if (input.name !== undefined && input.name !== service.name) await assertNameFree(ctx, location, input.name);
      const changes = {
        name: input.name ?? service.name,
        hostPattern: input.hostPattern ?? service.hostPattern,
        isEnabled: input.isEnabled ?? service.isEnabled,
        updatedAt: ctx.clock.now().toISOString(),
      };
      await ctx.repo(serviceRepository).update(service.id, changes, definitions);
      return { service: await present(ctx, service.id) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a proxied service; access bundles that held it no longer do",
    audience: "principal",
    input: serviceRefInput,
    output: serviceOutput,
    use: serviceScope("delete"),
    async run(ctx, _actor, _input, { service }) {
      const shown = await present(ctx, service.id);
      await ctx.repo(serviceRepository).remove([service], ctx.clock.now().toISOString());
      return { service: shown };
    },
  }),
};
