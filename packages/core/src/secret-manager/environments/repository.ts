import { accessTables, type EnvironmentRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import { tablesOf, type TablesOf } from "../../storage/table.js";
import { environmentPurged } from "../hooks.js";
import { secretTables } from "../tables.js";

/** Environments are access's table (scopes read them); the secret manager writes them, and purges what lives in them. */
const tables = { projects: accessTables.projects, environments: accessTables.environments, ...secretTables };
type Tables = TablesOf<typeof tables>;

/** A new environment; without a position it goes after every other. */
export type NewEnvironment = Omit<EnvironmentRow, "position"> & { position?: number };

export type EnvironmentChanges = Partial<Pick<EnvironmentRow, "name" | "slug" | "position">> & Pick<EnvironmentRow, "updatedAt">;

export type EnvironmentDeletion = Pick<EnvironmentRow, "deletedAt" | "deleteAfter" | "deletedBy" | "updatedAt">;

/**
 * Slugs and positions are read, then written: the project's row stays locked until the
 * transaction ends, so two changes to one project's environments never interleave.
 */
const lockProject = (t: Tables, projectId: string) => t.projects.find({ id: projectId }, { forUpdate: true });

const slugTaken = async (t: Tables, projectId: string, slug: string) =>
  (await t.environments.findOne({ projectId, slug, deletedAt: null })) !== undefined;

export const environmentRepository = defineRepository("secret-manager.environments", (ctx) => {
  const t = tablesOf(ctx.storage, tables);
  return {
    /** Any environment by id, soft-deleted or not. */
    byId: (id: string): Promise<EnvironmentRow | undefined> => t.environments.get(id),

    async liveById(projectId: string, id: string): Promise<EnvironmentRow | undefined> {
      const env = await t.environments.get(id);
      return env && env.projectId === projectId && !env.deletedAt ? env : undefined;
    },

    /** The project's live environments by id. */
    async liveOf(projectId: string): Promise<Map<string, EnvironmentRow>> {
      const envs = await t.environments.find({ projectId, deletedAt: null });
      return new Map(envs.map((e) => [e.id, e]));
    },

    /** Undefined when a live environment of the project has the slug already. */
    create: (env: NewEnvironment): Promise<EnvironmentRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await lockProject(w, env.projectId);
        if (await slugTaken(w, env.projectId, env.slug)) return undefined;
        // Soft-deleted environments keep their positions: a new one goes after them too.
        const all = await w.environments.find({ projectId: env.projectId });
        const row: EnvironmentRow = { ...env, position: env.position ?? Math.max(-1, ...all.map((e) => e.position)) + 1 };
        await w.environments.insert(row);
        return row;
      }),

    /** The environment as changed; undefined when the new slug is another live environment's. */
    update: (env: EnvironmentRow, changes: EnvironmentChanges): Promise<EnvironmentRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        if (changes.slug !== undefined && changes.slug !== env.slug) {
          await lockProject(w, env.projectId);
          if (await slugTaken(w, env.projectId, changes.slug)) return undefined;
        }
        await w.environments.update({ id: env.id }, changes);
        const changed = await w.environments.get(env.id);
        if (!changed) throw new NotFoundError("Environment not found");
        return changed;
      }),

    /** Conditional on still being live: of two concurrent deletions one records the deleter, the other gets false. */
    softDelete: async (env: EnvironmentRow, deletion: EnvironmentDeletion): Promise<boolean> =>
      (await t.environments.update({ id: env.id, deletedAt: null }, deletion)) === 1,

    /** Soft-deleted environments whose `deleteAfter` is `now` or earlier. */
    purgeDue: (now: string): Promise<EnvironmentRow[]> => t.environments.find({ deleteAfter: { lte: now } }),

    /**
     * Removes an environment with everything in it, in one transaction: folders, secrets and their
     * versions, imports into and out of it, and what other areas keep there (`environmentPurged`).
     */
    purge: (env: EnvironmentRow, at: string): Promise<void> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await tx.emit(environmentPurged, { projectId: env.projectId, envId: env.id, at });
        await w.secretVersions.delete({ envId: env.id });
        await w.secrets.delete({ envId: env.id });
        await w.secretImports.delete({ envId: env.id });
        await w.secretImports.delete({ importEnvId: env.id });
        await w.secretFolders.delete({ envId: env.id });
        await w.environments.delete({ id: env.id });
      }),
  };
});
