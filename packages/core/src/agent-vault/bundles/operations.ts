import { z } from "zod";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { BundleRow } from "../tables.js";
import { checkGrantees, isGrantee, uniqueGrants } from "./grants.js";
import { bundleRepository } from "./repository.js";
import { accessBundleSchema, bundleOutput, bundleRefInput, createBundleInput, listBundlesInput, updateBundleInput } from "./schemas.js";
import { bundleProjectScope, bundleScope } from "./scope.js";
import { rebundles } from "../services/redirects.js";
import {
  assertDistinctHostPatterns,
  bundleServices,
  canReadServices,
  locateProjectServices,
  requireCredentialReadsOf,
  requireOnServices,
  uniqueIds,
} from "./services.js";
import { toBundleObject } from "./view.js";

/**
 * Access bundles. Managing one takes the matching `proxied-services` action on every service it
 * holds (before and after a change): a bundle hands those services' credentials to its grantees.
 * Choosing its services or grantees also takes `readValue` on every secret those credentials use.
 * Grantees may read the bundles granted to them, so they can open sessions on them.
 */

async function assertNameFree(ctx: Context, projectId: string, name: string): Promise<void> {
  if (await ctx.repo(bundleRepository).byName(projectId, name)) {
    throw new BadRequestError(`An access bundle named '${name}' already exists in this project`);
  }
}

export const accessBundleOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an access bundle: a named set of proxied services of one project, granted to users and machine identities",
    audience: "principal",
    input: createBundleInput,
    output: bundleOutput,
    use: bundleProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      const serviceIds = uniqueIds(input.serviceIds);
      const located = await locateProjectServices(ctx, project.id, serviceIds);
      requireOnServices(access, "create", located);
      assertDistinctHostPatterns(located);
      await requireCredentialReadsOf(ctx, access, located);
      const grants = uniqueGrants(input.grants);
      await checkGrantees(ctx, project.orgId, grants);
      await assertNameFree(ctx, project.id, input.name);
      const now = ctx.clock.now().toISOString();
      const bundle: BundleRow = {
        id: newId(),
        orgId: project.orgId,
        projectId: project.id,
        name: input.name,
        description: input.description,
        serviceIds,
        grants,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.repo(bundleRepository).insert(bundle);
      return { bundle: toBundleObject(bundle) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's access bundles the caller may read or holds a grant on",
    audience: "principal",
    input: listBundlesInput,
    output: z.object({ bundles: z.array(accessBundleSchema) }),
    use: bundleProjectScope,
    async run(ctx, actor, _input, { access, project }) {
      const visible: BundleRow[] = [];
      for (const bundle of await ctx.repo(bundleRepository).ofProject(project.id)) {
        if (isGrantee(bundle, actor) || canReadServices(access, await bundleServices(ctx, bundle))) visible.push(bundle);
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
    use: bundleScope,
    async run(_ctx, actor, _input, { bundle, access, located }) {
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
    use: bundleScope,
    async run(ctx, _actor, input, { bundle, access, located }) {
      requireOnServices(access, "edit", located);
      const serviceIds = input.serviceIds && uniqueIds(input.serviceIds);
      const services = serviceIds ? await locateProjectServices(ctx, bundle.projectId, serviceIds) : located;
      if (serviceIds) {
        requireOnServices(access, "edit", services);
        assertDistinctHostPatterns(services);
      }
      const grants = input.grants && uniqueGrants(input.grants);
      if (grants) await checkGrantees(ctx, bundle.orgId, grants);
      if (rebundles(bundle, { serviceIds, grants })) await requireCredentialReadsOf(ctx, access, services);
      if (input.name !== undefined && input.name !== bundle.name) await assertNameFree(ctx, bundle.projectId, input.name);
      const updated = await ctx.repo(bundleRepository).update(bundle.id, {
        name: input.name ?? bundle.name,
        description: input.description ?? bundle.description,
        serviceIds: serviceIds ?? bundle.serviceIds,
        grants: grants ?? bundle.grants,
        updatedAt: ctx.clock.now().toISOString(),
      });
      if (!updated) throw new NotFoundError("Access bundle not found");
      return { bundle: toBundleObject(updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an access bundle; the agent sessions opened on it end",
    audience: "principal",
    input: bundleRefInput,
    output: bundleOutput,
    use: bundleScope,
    async run(ctx, _actor, _input, { bundle, access, located }) {
      requireOnServices(access, "delete", located);
      await ctx.repo(bundleRepository).remove(bundle, ctx.clock.now().toISOString());
      return { bundle: toBundleObject(bundle) };
    },
  }),
};
