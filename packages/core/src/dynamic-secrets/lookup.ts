import type { Context } from "../kernel/context.js";
import { NotFoundError } from "../kernel/errors.js";
import { leaseRepository } from "./leases/repository.js";
import type { DynamicSecretFolderScope } from "./scope.js";
import { dynamicSecretRepository } from "./secrets/repository.js";
import type { DynamicSecretRow, LeaseRow } from "./tables.js";
import type { SecretPlace } from "./secrets/view.js";

/** Finding what an input names inside the folder its scope opened: 404 for anything elsewhere. */

export const placeOf = (scope: DynamicSecretFolderScope): SecretPlace => ({ environment: scope.env.slug, secretPath: scope.folder.path });

export async function requireDynamicSecret(ctx: Context, scope: DynamicSecretFolderScope, name: string): Promise<DynamicSecretRow> {
  const secret = await ctx.repo(dynamicSecretRepository).byName(scope.folder.id, name);
  if (!secret) throw new NotFoundError(`Dynamic secret '${name}' not found in ${scope.env.slug}:${scope.folder.path}`);
  return secret;
}

/** A lease of a dynamic secret in the scope's folder; a lease of any other folder is as unknown as a missing one. */
export async function requireLease(ctx: Context, scope: DynamicSecretFolderScope, leaseId: string): Promise<{ lease: LeaseRow; secret: DynamicSecretRow }> {
  const lease = await ctx.repo(leaseRepository).byId(leaseId);
  const secret = lease && (await ctx.repo(dynamicSecretRepository).byId(lease.dynamicSecretId));
  if (!lease || !secret || secret.folderId !== scope.folder.id || secret.deletedAt !== null) {
    throw new NotFoundError(`Lease not found in ${scope.env.slug}:${scope.folder.path}`);
  }
  return { lease, secret };
}
