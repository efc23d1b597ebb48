import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { actorProfile } from "../actor-profile.js";
import { memberProjectScope } from "../scope.js";
import { environmentRepository } from "./repository.js";
import { createEnvironmentInput, deleteEnvironmentInput, environmentAnswer, updateEnvironmentInput } from "./schemas.js";
import { toEnvironmentAnswer } from "./view.js";

/** Soft-deleted environments are purged this long after deletion. */
const DELETE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

const slugTaken = (slug: string) => new BadRequestError(`An environment with slug '${slug}' already exists`);
const notFound = () => new NotFoundError("Environment not found");

export const environmentOperations = {
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
    async run(ctx, _actor, input, { access, project }) {
      const environments = ctx.repo(environmentRepository);
      const env = await environments.liveById(project.id, input.id);
      if (!env) throw notFound();
      access.require("edit", "environments", { environment: env.slug });
      const changes = { name: input.name, slug: input.slug, position: input.position, updatedAt: ctx.clock.now().toISOString() };
      const updated = await environments.update(env, changes);
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
      if (!(await environments.softDelete(env, deletion))) throw notFound();
      return toEnvironmentAnswer(ctx, project, "Successfully deleted environment", { ...env, ...deletion });
    },
  }),
};
