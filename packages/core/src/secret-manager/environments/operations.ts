import { z } from "zod";
import type { ProjectScope } from "../secrets/scope.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { projectSchema } from "../../tenancy/projects/schemas.js";
import { toProject } from "../../tenancy/projects/view.js";
import { isoDateTime, slugPattern } from "../../kernel/schemas.js";
import { actorProfile } from "../secrets/actor-profile.js";
import { projectScoped } from "../input-fields.js";
import { openProject } from "../secrets/scope.js";
import type { AppStorage as Storage } from "../../schema.js";
import { findEnvironment, type EnvironmentRow } from "./lookup.js";

/** Soft-deleted environments are purged this long after deletion. */
const DELETE_AFTER_MS = 30 * 24 * 60 * 60 * 1000;

const environmentSchema = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  position: z.number().int(),
  projectId: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const answer = z.object({ message: z.string(), workspace: projectSchema, environment: environmentSchema });

const name = z.string().trim().min(1).max(64);
const slug = z.string().trim().min(1).max(64).regex(slugPattern, "lower-case letters, digits and hyphens");
const position = z.number().int().min(0).max(10_000);

const toEnvironment = (e: EnvironmentRow) => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  position: e.position,
  projectId: e.projectId,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

async function answerWith(ctx: Context, scope: ProjectScope, message: string, env: EnvironmentRow) {
  return { message, workspace: await toProject(ctx, ctx.storage, scope.project), environment: toEnvironment(env) };
}

/** A live environment of the project by id, else 404. */
async function liveEnvironment(ctx: Context, projectId: string, id: string): Promise<EnvironmentRow> {
  const env = await ctx.storage.tables.environments.get(id);
  if (!env || env.projectId !== projectId || env.deletedAt) throw new NotFoundError("Environment not found");
  return env;
}

async function assertSlugFree(storage: Storage, projectId: string, wanted: string): Promise<void> {
  if (await findEnvironment(storage, projectId, wanted)) throw new BadRequestError(`An environment with slug '${wanted}' already exists`);
}

export const environmentOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an environment in a project",
    audience: "principal",
    input: projectScoped({ name, slug, position: position.optional() }),
    output: answer,
    async run(ctx, actor, input) {
      const scope = await openProject(ctx, actor, input.project);
      scope.access.require("create", "environments", { environment: input.slug });
      const projectId = scope.project.id;
      const env = await ctx.storage.transaction(async (tx) => {
        await assertSlugFree(tx, projectId, input.slug);
        const all = await tx.tables.environments.find({ projectId });
        const now = ctx.clock.now().toISOString();
        const row: EnvironmentRow = {
          id: newId(),
          projectId,
          name: input.name,
          slug: input.slug,
          position: input.position ?? Math.max(-1, ...all.map((e) => e.position)) + 1,
          deletedAt: null,
          deleteAfter: null,
          deletedBy: null,
          createdAt: now,
          updatedAt: now,
        };
        await tx.tables.environments.insert(row);
        return row;
      });
      return answerWith(ctx, scope, "Successfully created environment", env);
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Rename an environment, change its slug or position",
    audience: "principal",
    input: projectScoped({ id: z.string().min(1), name: name.optional(), slug: slug.optional(), position: position.optional() }),
    output: answer,
    async run(ctx, actor, input) {
      const scope = await openProject(ctx, actor, input.project);
      const env = await liveEnvironment(ctx, scope.project.id, input.id);
      scope.access.require("edit", "environments", { environment: env.slug });
      const updated = await ctx.storage.transaction(async (tx) => {
        if (input.slug && input.slug !== env.slug) await assertSlugFree(tx, scope.project.id, input.slug);
        const patch = { name: input.name, slug: input.slug, position: input.position, updatedAt: ctx.clock.now().toISOString() };
        await tx.tables.environments.update({ id: env.id }, patch);
        return (await tx.tables.environments.get(env.id))!;
      });
      return answerWith(ctx, scope, "Successfully updated environment", updated);
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete an environment: it moves to the project's deletedEnvironments and its secrets become unreachable",
    audience: "principal",
    input: projectScoped({ id: z.string().min(1) }),
    output: answer,
    async run(ctx, actor, input) {
      const scope = await openProject(ctx, actor, input.project);
      const env = await liveEnvironment(ctx, scope.project.id, input.id);
      scope.access.require("delete", "environments", { environment: env.slug });
      const { type, id, email, username, firstName, lastName } = await actorProfile(ctx.storage, actor);
      const now = ctx.clock.now();
      const deleted = {
        deletedAt: now.toISOString(),
        deleteAfter: new Date(now.getTime() + DELETE_AFTER_MS).toISOString(),
        deletedBy: { type, id, email, username, firstName, lastName },
        updatedAt: now.toISOString(),
      };
      // Conditional on still being live: of two concurrent deletions one records the deleter.
      const matched = await ctx.storage.tables.environments.update({ id: env.id, deletedAt: null }, deleted);
      if (matched !== 1) throw new NotFoundError("Environment not found");
      return answerWith(ctx, scope, "Successfully deleted environment", { ...env, ...deleted });
    },
  }),
};
