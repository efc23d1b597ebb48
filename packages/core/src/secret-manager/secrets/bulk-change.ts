import type { ProjectAccess } from "../../access/project-access.js";
import type { ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { projectCipher } from "../cipher.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import { ROOT_PATH } from "../paths.js";
import type { SecretRow, TagRow } from "../tables.js";
import { decodeSecret } from "./model.js";
import { requireSecretChange, type PlacedSecret } from "./visibility.js";

/**
 * A change that rewrites many secrets without naming them: deleting a tag (their tag sets),
 * renaming an environment (their environment).
 */
export interface BulkChange {
  /** The permission-object fields the change rewrites: when no rule of the actor looks at them, nothing needs checking. */
  readonly fields: readonly string[];
  /** A secret as it will be after the change. */
  after(before: PlacedSecret): PlacedSecret;
}

/**
 * Authorizes a bulk change against every secret it rewrites, as it is and as it will be — exactly
 * as renaming or retagging each one would be (requireSecretChange): the actor must be allowed to
 * edit each on both sides, and the change must not make any of them readable (or otherwise
 * reachable) where it was not. Personal overrides of other principals are none of the actor's
 * business and are left out; secrets of soft-deleted environments are unreachable and left out.
 * `tags` holds every tag either side names.
 */
export async function requireBulkChange(
  ctx: Context,
  scope: { access: ProjectAccess; project: ProjectRow },
  principalId: string | undefined,
  rows: readonly SecretRow[],
  tags: ReadonlyMap<string, TagRow>,
  change: BulkChange,
): Promise<void> {
  const { access, project } = scope;
  if (rows.length === 0 || access.unaffectedBy("secrets", ["edit"], change.fields)) return;
  const cipher = await projectCipher(ctx, project);
  const envs = await ctx.repo(environmentRepository).liveOf(project.id);
  const pathsByEnv = new Map<string, Map<string, string>>();
  const pathOf = async (envId: string, folderId: string) => {
    if (folderId === envId) return ROOT_PATH;
    let paths = pathsByEnv.get(envId);
    if (!paths) {
      paths = new Map((await ctx.repo(folderRepository).ofEnvironment(envId)).map((f) => [f.id, f.path]));
      pathsByEnv.set(envId, paths);
    }
    return paths.get(folderId);
  };
  for (const row of rows) {
    if (row.type === "personal" && row.ownerId !== principalId) continue;
    const env = envs.get(row.envId);
    const path = env && (await pathOf(env.id, row.folderId));
    if (!env || path === undefined) continue;
    const before: PlacedSecret = { environment: env.slug, secret: decodeSecret(cipher, row, { id: row.folderId, path }) };
    requireSecretChange(access, before, change.after(before), tags);
  }
}
