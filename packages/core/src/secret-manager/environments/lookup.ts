import { NotFoundError } from "../../kernel/errors.js";
import type { AccessRow } from "../../access/tables.js";
import type { AppStorage as Storage } from "../../schema.js";

export type EnvironmentRow = AccessRow<"environments">;

/** A live environment by slug; soft-deleted ones are not found, so their secrets are unreachable. */
export const findEnvironment = (storage: Storage, projectId: string, slug: string): Promise<EnvironmentRow | undefined> =>
  storage.tables.environments.findOne({ projectId, slug, deletedAt: null });

export async function requireEnvironment(storage: Storage, projectId: string, slug: string): Promise<EnvironmentRow> {
  const env = await findEnvironment(storage, projectId, slug);
  if (!env) throw new NotFoundError(`Environment '${slug}' not found`);
  return env;
}

/** The project's live environments by id. */
export async function liveEnvironments(storage: Storage, projectId: string): Promise<Map<string, EnvironmentRow>> {
  const envs = await storage.tables.environments.find({ projectId, deletedAt: null });
  return new Map(envs.map((e) => [e.id, e]));
}
