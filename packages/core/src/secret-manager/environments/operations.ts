import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ProjectAccess } from "../../access/project-access.js";
import type { EnvironmentRow, ProjectRow } from "../../access/tables.js";
import { actorPrincipal, type Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { actorProfile } from "../actor-profile.js";
import { folderRepository } from "../folders/repository.js";
import { ROOT_PATH } from "../paths.js";
import { requireBulkChange } from "../secrets/bulk-change.js";
import { secretRepository } from "../secrets/repository.js";
import { tagRepository } from "../tags/repository.js";
import { memberProjectScope } from "../scope.js";
import { foldersOfEnvironment, requireRemovable } from "../removal-check.js";
import { environmentRepository } from "./repository.js";
import {
  createEnvironmentInput,
  deleteEnvironmentInput,
  environmentAnswer,
  environmentListOutput,
  environmentOutput,
  getEnvironmentInput,
  listEnvironmentsInput,
  updateEnvironmentInput,
} from "./schemas.js";
import { rankedEnvironments, toEnvironment, toEnvironmentAnswer } from "./view.js";

/** Soft-deleted environments are purged this long after deletion. */
const DELETE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

const slugTaken = (slug: string) => new BadRequestError(`An environment with slug '${slug}' already exists`);
const notFound = () => new NotFoundError("Environment not found");

/**
 * A new slug moves the environment and everything in it in the permission space (rules name
 * environments by slug): the environment, each of its folders and each of its secrets is authorized
 * as it is and as it will be, so a rename never lifts a deny written for the old slug.
 */
async function requireSlugChange(tx: Context, actor: Actor, scope: { access: ProjectAccess; project: ProjectRow }, env: EnvironmentRow, slug: string): Promise<void> {
  const { access } = scope;
  const moved = (object: Record<string, unknown>) => ({ ...object, environment: slug });
  access.requireChange("edit", "environments", { environment: env.slug }, moved({}), `environment '${env.slug}'`);
  if (!access.unaffectedBy("secret-folders", ["edit"], ["environment"])) {
    const paths = [ROOT_PATH, ...(await tx.repo(folderRepository).ofEnvironment(env.id)).map((f) => f.path)];
    for (const secretPath of paths) {
      const before = { environment: env.slug, secretPath };
      access.requireChange("edit", "secret-folders", before, moved(before), `folder '${secretPath}' of environment '${env.slug}'`);
    }
  }
  const rows = await tx.repo(secretRepository).inEnvironment(env.id);
  const tags = rows.some((r) => r.tagIds.length) ? await tx.repo(tagRepository).ofProject(env.projectId) : new Map();
  await requireBulkChange(tx, scope, actorPrincipal(actor)?.id, rows, tags, { fields: ["environment"], after: (before) => ({ ...before, environment: slug }) });
}

export const environmentOperations = {
  list: defineOperation({
    name: "list",
    summary: "List a project's environments in their order (positions from 1), those the caller may read",
    audience: "principal",
    input: listEnvironmentsInput,
    output: environmentListOutput,
    use: memberProjectScope,
    async run(ctx, _actor, _input, { access, project }) {
      const envs = await rankedEnvironments(ctx, project.id);
      return { environments: envs.filter((e) => access.can("read", "environments", { environment: e.slug })).map(toEnvironment) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an environment of a project by id",
    audience: "principal",
    input: getEnvironmentInput,
    output: environmentOutput,
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      const env = (await rankedEnvironments(ctx, project.id)).find((e) => e.id === input.id);
      if (!env) throw notFound();
      access.require("read", "environments", { environment: env.slug });
      return { environment: toEnvironment(env) };
    },
  }),

  create: defineOperation({
    name: "create",
    summary: "Create an environment in a project",
    audience: "principal",
    input: createEnvironmentInput,
    output: environmentAnswer,
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      access.require("create", "environments", { environment: input.slug });
      const now = ctx.clock.now().toISOString();
      const env = await ctx.repo(environmentRepository).create({
        id: newId(),
        projectId: project.id,
        name: input.name,
        slug: input.slug,
        position: input.position,
        deletedAt: null,
        deleteAfter: null,
        deletedBy: null,
        createdAt: now,
        updatedAt: now,
      });
      if (!env) throw slugTaken(input.slug);
      return toEnvironmentAnswer(ctx, project, "Successfully created environment", env);
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Rename an environment, change its slug or position",
    audience: "principal",
    input: updateEnvironmentInput,
    output: environmentAnswer,
    use: memberProjectScope,
    async run(ctx, actor, input, { access, project }) {
      const updated = await ctx.withTransaction(async (tx) => {
        const environments = tx.repo(environmentRepository);
        const env = await environments.liveById(project.id, input.id);
        if (!env) throw notFound();
        if (input.slug !== undefined && input.slug !== env.slug) await requireSlugChange(tx, actor, { access, project }, env, input.slug);
        else access.require("edit", "environments", { environment: env.slug });
        const changes = { name: input.name, slug: input.slug, position: input.position, updatedAt: ctx.clock.now().toISOString() };
        return environments.update(env, changes);
      });
      if (!updated) throw slugTaken(input.slug!);
      return toEnvironmentAnswer(ctx, project, "Successfully updated environment", updated);
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an environment: it moves to the project's deletedEnvironments and its secrets become unreachable",
    audience: "principal",
    input: deleteEnvironmentInput,
    output: environmentAnswer,
    use: memberProjectScope,
    async run(ctx, actor, input, { access, project }) {
      const environments = ctx.repo(environmentRepository);
      const env = await environments.liveById(project.id, input.id);
      if (!env) throw notFound();
      access.require("delete", "environments", { environment: env.slug });
      const { type, id, email, username, firstName, lastName } = await actorProfile(ctx, actor);
      const now = ctx.clock.now();
      const deletion = {
        deletedAt: now.toISOString(),
        deleteAfter: new Date(now.getTime() + DELETE_AFTER_MS).toISOString(),
        deletedBy: { type, id, email, username, firstName, lastName },
        updatedAt: now.toISOString(),
      };
      // Its secrets and proxied services go with it (for good at its purge): only if the actor may delete every one.
      await ctx.withTransaction(async (tx) => {
        await requireRemovable(tx, access, env, await foldersOfEnvironment(tx, env), `environment '${env.slug}'`);
        if (!(await tx.repo(environmentRepository).softDelete(env, deletion))) throw notFound();
      });
      return toEnvironmentAnswer(ctx, project, "Successfully deleted environment", { ...env, ...deletion });
    },
  }),
};
