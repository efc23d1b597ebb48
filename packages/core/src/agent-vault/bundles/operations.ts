import { z } from "zod";
import { loadProjectAccess } from "../../access/project-access.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { AppStorage as Storage } from "../../schema.js";
import {
  bundleServices,
  canReadServices,
  checkGrantees,
  isGrantee,
  locateProjectServices,
  requireOnServices,
  toBundleObject,
  uniqueGrants,
  uniqueIds,
  type BundleRow,
} from "./repository.js";
import { accessBundleSchema, bundleOutput, bundleRefInput, createBundleInput, listBundlesInput, updateBundleInput } from "./schemas.js";

/**
 * Access bundles. Managing one takes the matching `proxied-services` action on every service it
 * holds (before and after a change): a bundle hands those services' credentials to its grantees.
 * Grantees may read the bundles granted to them, so they can open sessions on them.
 */

const NOT_FOUND = "Access bundle not found";

async function openBundle(ctx: Context, actor: Actor, bundleId: string) {
  const bundle = await ctx.storage.tables.agentAccessBundles.get(bundleId);
  if (!bundle) throw new NotFoundError(NOT_FOUND);
  const access = await loadProjectAccess(ctx, actor, { projectId: bundle.projectId }).catch((error) => {
    throw error instanceof NotFoundError ? new NotFoundError(NOT_FOUND) : error;
  });
  return { bundle, access, located: await bundleServices(ctx.storage, bundle) };
}

async function assertNameFree(storage: Storage, projectId: string, name: string): Promise<void> {
  if (await storage.tables.agentAccessBundles.findOne({ projectId, name })) {
    throw new BadRequestError(`An access bundle named '${name}' already exists in this project`);
  }
}

async function reload(storage: Storage, bundleId: string): Promise<BundleRow> {
  const bundle = await storage.tables.agentAccessBundles.get(bundleId);
  if (!bundle) throw new NotFoundError(NOT_FOUND);
  return bundle;
}

export const accessBundleOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an access bundle: a named set of proxied services of one project, granted to users and machine identities",
    audience: "principal",
    input: createBundleInput,
    output: bundleOutput,
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      const serviceIds = uniqueIds(input.serviceIds);
      const located = await locateProjectServices(ctx.storage, access.project.id, serviceIds);
      requireOnServices(access, "create", located);
      const grants = uniqueGrants(input.grants);
      await checkGrantees(ctx.storage, access.project.orgId, grants);
      await assertNameFree(ctx.storage, access.project.id, input.name);
      const now = ctx.clock.now().toISOString();
      const bundle: BundleRow = {
        id: newId(),
        orgId: access.project.orgId,
        projectId: access.project.id,
        name: input.name,
        description: input.description,
        serviceIds,
        grants,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.storage.tables.agentAccessBundles.insert(bundle);
      return { bundle: toBundleObject(bundle) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's access bundles the caller may read or holds a grant on",
    audience: "principal",
    input: listBundlesInput,
    output: z.object({ bundles: z.array(accessBundleSchema) }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      const rows = await ctx.storage.tables.agentAccessBundles.find({ projectId: access.project.id }, { orderBy: [["createdAt", "asc"], ["id", "asc"]] });
      const visible: BundleRow[] = [];
      for (const bundle of rows) {
        if (isGrantee(bundle, actor) || canReadServices(access, await bundleServices(ctx.storage, bundle))) visible.push(bundle);
      }
      return { bundles: visible.map(toBundleObject) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an access bundle",
    audience: "principal",
    input: bundleRefInput,
    output: bundleOutput,
    async run(ctx, actor, input) {
      const { bundle, access, located } = await openBundle(ctx, actor, input.bundleId);
      if (!isGrantee(bundle, actor)) requireOnServices(access, "read", located);
      return { bundle: toBundleObject(bundle) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary:
      "Update an access bundle; `serviceIds` and `grants`, when present, replace the whole set. " +
      "Sessions of a principal whose grant is removed stop working.",
    audience: "principal",
    input: updateBundleInput,
    output: bundleOutput,
    async run(ctx, actor, input) {
      const { bundle, access, located } = await openBundle(ctx, actor, input.bundleId);
      requireOnServices(access, "edit", located);
      const serviceIds = input.serviceIds && uniqueIds(input.serviceIds);
      if (serviceIds) requireOnServices(access, "edit", await locateProjectServices(ctx.storage, bundle.projectId, serviceIds));
      const grants = input.grants && uniqueGrants(input.grants);
      if (grants) await checkGrantees(ctx.storage, bundle.orgId, grants);
      if (input.name !== undefined && input.name !== bundle.name) await assertNameFree(ctx.storage, bundle.projectId, input.name);
      await ctx.storage.tables.agentAccessBundles.update(
        { id: bundle.id },
        {
          name: input.name ?? bundle.name,
          description: input.description ?? bundle.description,
          serviceIds: serviceIds ?? bundle.serviceIds,
          grants: grants ?? bundle.grants,
          updatedAt: ctx.clock.now().toISOString(),
        },
      );
      return { bundle: toBundleObject(await reload(ctx.storage, bundle.id)) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an access bundle; the agent sessions opened on it end",
    audience: "principal",
    input: bundleRefInput,
    output: bundleOutput,
    async run(ctx, actor, input) {
      const { bundle, access, located } = await openBundle(ctx, actor, input.bundleId);
      requireOnServices(access, "delete", located);
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.agentSessions.update({ bundleId: bundle.id, revokedAt: null }, { revokedAt: ctx.clock.now().toISOString() });
        await tx.tables.agentAccessBundles.delete({ id: bundle.id });
      });
      return { bundle: toBundleObject(bundle) };
    },
  }),
};
