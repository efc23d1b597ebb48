import { accessTables, type EnvironmentRow } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import { tablesOf, type TablesOf } from "../../storage/table.js";
import { environmentPurged } from "../hooks.js";
import { secretTables } from "../tables.js";
import { listedOrder, positionsOf, reorder, type OrderChange } from "../../access/environment-order.js";

/** Environments are access's table (scopes read them); the secret manager writes them, and purges what lives in them. */
const tables = { projects: accessTables.projects, environments: accessTables.environments, ...secretTables };
type Tables = TablesOf<typeof tables>;

/** A new environment; without a position it goes after every other (order.ts). */
export type NewEnvironment = Omit<EnvironmentRow, "position"> & { position?: number };

export type EnvironmentChanges = Partial<Pick<EnvironmentRow, "name" | "slug" | "position">> & Pick<EnvironmentRow, "updatedAt">;

export type EnvironmentDeletion = Pick<EnvironmentRow, "deletedAt" | "deleteAfter" | "deletedBy" | "updatedAt">;

/**
 * Slugs and positions are read, then written: the project's row stays locked until the
 * transaction ends, so two changes to one project's environments never interleave.
 */
const lockProject = (t: Tables, projectId: string) => t.projects.find({ id: projectId }, { forUpdate: true });

/** The project's live environments in their listed order. */
const liveInOrder = async (t: Tables, projectId: string) => listedOrder(await t.environments.find({ projectId, deletedAt: null }));

/**
 * Applies an order change to the project's live environments: positions 1…n, written only where
 * they differ. The position the changed environment takes.
 */
async function applyOrder(t: Tables, live: readonly EnvironmentRow[], change: OrderChange): Promise<number | undefined> {
  const positions = positionsOf(reorder(live.map((e) => e.id), change));
  for (const env of live) {
    const position = positions.get(env.id);
    if (position !== undefined && position !== env.position && env.id !== change.id) await t.environments.update({ id: env.id }, { position });
  }
  return positions.get(change.id);
}

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

    /** Every environment of the project, soft-deleted ones included. */
    allOf: (projectId: string): Promise<EnvironmentRow[]> => t.environments.find({ projectId }),

    /** The project's live environments by id. */
    async liveOf(projectId: string): Promise<Map<string, EnvironmentRow>> {
      const envs = await t.environments.find({ projectId, deletedAt: null });
      return new Map(envs.map((e) => [e.id, e]));
    },

    /** The project's live environments in their listed order. */
    liveInOrder: (projectId: string): Promise<EnvironmentRow[]> => liveInOrder(t, projectId),

    /** Undefined when a live environment of the project has the slug already. */
    create: (env: NewEnvironment): Promise<EnvironmentRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await lockProject(w, env.projectId);
        if (await slugTaken(w, env.projectId, env.slug)) return undefined;
        const position = await applyOrder(w, await liveInOrder(w, env.projectId), { kind: "insert", id: env.id, at: env.position });
        const row: EnvironmentRow = { ...env, position: position as number };
        await w.environments.insert(row);
        return row;
      }),

    /** The environment as changed; undefined when the new slug is another live environment's. A new position moves it. */
    update: (env: EnvironmentRow, changes: EnvironmentChanges): Promise<EnvironmentRow | undefined> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        const { position, ...rest } = changes;
        if ((rest.slug !== undefined && rest.slug !== env.slug) || position !== undefined) await lockProject(w, env.projectId);
        if (rest.slug !== undefined && rest.slug !== env.slug && (await slugTaken(w, env.projectId, rest.slug))) return undefined;
        const moved = position === undefined ? undefined : await applyOrder(w, await liveInOrder(w, env.projectId), { kind: "move", id: env.id, to: position });
        await w.environments.update({ id: env.id }, moved === undefined ? rest : { ...rest, position: moved });
        const changed = await w.environments.get(env.id);
        if (!changed) throw new NotFoundError("Environment not found");
        return changed;
      }),

    /**
     * Conditional on still being live: of two concurrent deletions one records the deleter, the
     * other gets false. The environments after it move up a place.
     */
    softDelete: (env: EnvironmentRow, deletion: EnvironmentDeletion): Promise<boolean> =>
      ctx.withTransaction(async (tx) => {
        const w = tablesOf(tx.storage, tables);
        await lockProject(w, env.projectId);
        if ((await w.environments.update({ id: env.id, deletedAt: null }, deletion)) !== 1) return false;
        await applyOrder(w, await liveInOrder(w, env.projectId), { kind: "remove", id: env.id });
        return true;
      }),

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
