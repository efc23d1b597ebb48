import { defineCache, type Context } from "../kernel/context.js";
import { NotFoundError } from "../kernel/errors.js";
import { ACCESS_CACHE_CAPACITY, ACCESS_CACHE_TTL_MS } from "./caches.js";
import { accessRepository } from "./repository.js";
import type { EnvironmentRow } from "./tables.js";

/** Live environments by project id and slug; unknown slugs are not cached. */
const environmentCache = defineCache<EnvironmentRow>({
  name: "environments",
  capacity: ACCESS_CACHE_CAPACITY,
  ttlMs: ACCESS_CACHE_TTL_MS,
  dependsOnAccess: true,
});

/**
 * A live environment of a project by slug: 404 for unknown and soft-deleted ones, so their
 * secrets are unreachable. Cached with access: an environment is created, renamed or deleted by
 * writes that drop the access caches, so this node's changes apply at once and other nodes'
 * within the caches' TTL.
 */
export async function liveEnvironment(ctx: Context, projectId: string, slug: string): Promise<EnvironmentRow> {
  const cache = ctx.caches.get(environmentCache);
  const key = `${projectId}\u0000${slug}`;
  const now = ctx.clock.now().getTime();
  const cached = cache.get(key, now);
  if (cached) return cached;
  const version = cache.version;
  const env = await ctx.repo(accessRepository).liveEnvironment(projectId, slug);
  if (!env) throw new NotFoundError(`Environment '${slug}' not found`);
  cache.set(key, env, { version, now });
  return env;
}
