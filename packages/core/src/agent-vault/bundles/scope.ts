import { projectScope, recordScope, type RecordScope } from "../../access/scope.js";
import type { Middleware } from "../../kernel/operation.js";
import type { BundleRow } from "../tables.js";
import { bundleRepository } from "./repository.js";
import { bundleServices, type LocatedService } from "./services.js";

/** A project's bundles: 404 for a project out of sight. Which bundles and actions are allowed depends on their services. */
export const bundleProjectScope = projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }) });

export interface BundleScope extends RecordScope<BundleRow> {
  readonly bundle: BundleRow;
  /** The services it still holds, where they live. */
  readonly located: LocatedService[];
}

const bundleRecord = recordScope({
  what: "Access bundle",
  load: (ctx, input: { bundleId: string }) => ctx.repo(bundleRepository).byId(input.bundleId),
});

/** A bundle by id: 404 when it or its project is out of sight. */
export const bundleScope: Middleware<{ bundleId: string }, BundleScope> = async (ctx, actor, input) => {
  const scope = await bundleRecord(ctx, actor, input);
  return { ...scope, bundle: scope.record, located: await bundleServices(ctx, scope.record) };
};
