import { z } from "zod";
import { requireOrgRole, resolveActingOrg } from "../../access/org-access.js";
import type { ProjectAccess } from "../../access/project-access.js";
import { RefusedRemovals } from "../../access/removal.js";
import { projectScope } from "../../access/scope.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { randomAlphanumeric, slugify } from "../../kernel/ids.js";
import type { Context } from "../../kernel/context.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ProjectRow } from "../../access/tables.js";
import { projectRemoving } from "../hooks.js";
import { projectRepository } from "./repository.js";
import {
  createProjectInput,
  listProjectsInput,
  PROJECT_TEMPLATES,
  projectIdInput,
  projectListOutput,
  projectOutput,
  updateProjectInput,
  workspaceListOutput,
  workspaceOutput,
} from "./schemas.js";
import { projectObject, toProject, type ProjectObject } from "./view.js";
import { visibleProjects } from "./visibility.js";

/** What a project starts with unless the caller asks for none. */
const DEFAULT_ENVIRONMENTS = [
  { name: "Development", slug: "dev" },
  { name: "Staging", slug: "staging" },
  { name: "Production", slug: "prod" },
];

/** A slug from the project's name, made unique with a random suffix and long enough for the slug rule. */
function generatedSlug(name: string): string {
  const slug = `${slugify(name, 48)}-${randomAlphanumeric(6).toLowerCase()}`.replace(/^-/, "");
  return slug.length < 5 ? `project-${slug}` : slug;
}

/** The project the input names, for its members (an outsider learns nothing about it). */
const memberScope = projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }), membership: true });

/** Changing a project's own fields is Infisical's `edit` on `settings`. */
const settingsScope = projectScope<{ projectId: string }>({
  project: (input) => ({ projectId: input.projectId }),
  permission: { action: "edit", subject: "settings" },
});

/** Deleting it is `delete` on `workspace`. */
const deletionScope = projectScope<{ projectId: string }>({
  project: (input) => ({ projectId: input.projectId }),
  permission: { action: "delete", subject: "workspace" },
});

export const projectOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a project; the caller becomes its admin",
    audience: "principal",
    input: createProjectInput,
    output: projectOutput,
    async run(ctx, actor, input) {
      const orgId = await resolveActingOrg(ctx, actor, input.organizationId);
      await requireOrgRole(ctx, actor, orgId, ["admin", "member"]);
      if (!(PROJECT_TEMPLATES as readonly string[]).includes(input.template)) {
        throw new BadRequestError(`Unknown project template '${input.template}'`);
      }
      return ctx.withTransaction(async (tx) => {
        const projects = tx.repo(projectRepository);
        if (input.slug && (await projects.slugTaken(orgId, input.slug))) throw new BadRequestError(`A project with slug '${input.slug}' already exists`);
        if (input.kmsKeyId && !(await projects.orgDataKey(orgId, input.kmsKeyId))) throw new BadRequestError("Unknown kmsKeyId");
        const { project, environments } = await projects.create({
          orgId,
          name: input.projectName,
          slug: input.slug ?? generatedSlug(input.projectName),
          type: input.type,
          description: input.projectDescription ?? "",
          template: input.template,
          hasDeleteProtection: input.hasDeleteProtection,
          secretKeyId: input.kmsKeyId || undefined,
          environments: input.shouldCreateDefaultEnvs ? DEFAULT_ENVIRONMENTS : [],
          admin: actorPrincipal(actor),
        });
        return { project: projectObject(project, environments) };
      });
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the projects the caller may see (its memberships; every project of an organization it administers)",
    audience: "principal",
    input: listProjectsInput,
    output: projectListOutput,
    async run(ctx, actor, input) {
      return { projects: await visibleProjects(ctx, actor, input) };
    },
  }),

  listWorkspaces: defineOperation({
    name: "listWorkspaces",
    summary: "List the caller's projects under Infisical's older key, `workspaces`",
    audience: "principal",
    input: listProjectsInput,
    output: workspaceListOutput,
    async run(ctx, actor, input) {
      return { workspaces: await visibleProjects(ctx, actor, input) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a project",
    audience: "principal",
    input: projectIdInput,
    output: projectOutput,
    use: memberScope,
    async run(ctx, _actor, _input, { project }) {
      return { project: await toProject(ctx, project) };
    },
  }),

  getWorkspace: defineOperation({
    name: "getWorkspace",
    summary: "Get a project under Infisical's older key, `workspace`",
    audience: "principal",
    input: projectIdInput,
    output: workspaceOutput,
    use: memberScope,
    async run(ctx, _actor, _input, { project }) {
      return { workspace: await toProject(ctx, project) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Change a project's name, slug, description and settings",
    audience: "principal",
    input: updateProjectInput,
    output: projectOutput,
    use: settingsScope,
    async run(ctx, _actor, input, { project }) {
      return { project: await updateProject(ctx, project, input) };
    },
  }),

  updateWorkspace: defineOperation({
    name: "updateWorkspace",
    summary: "Change a project, answered under Infisical's older key, `workspace`",
    audience: "principal",
    input: updateProjectInput,
    output: workspaceOutput,
    use: settingsScope,
    async run(ctx, _actor, input, { project }) {
      return { workspace: await updateProject(ctx, project, input) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a project with everything in it (refused while it has delete protection)",
    audience: "principal",
    input: projectIdInput,
    output: projectOutput,
    use: deletionScope,
    async run(ctx, _actor, _input, { access, project }) {
      return { project: await deleteProject(ctx, access, project) };
    },
  }),

  deleteWorkspace: defineOperation({
    name: "deleteWorkspace",
    summary: "Delete a project, answered under Infisical's older key, `workspace`",
    audience: "principal",
    input: projectIdInput,
    output: workspaceOutput,
    use: deletionScope,
    async run(ctx, _actor, _input, { access, project }) {
      return { workspace: await deleteProject(ctx, access, project) };
    },
  }),
};

async function updateProject(ctx: Context, project: ProjectRow, input: z.output<typeof updateProjectInput>): Promise<ProjectObject> {
  const { projectId: _, ...changes } = input;
  return ctx.withTransaction(async (tx) => {
    const projects = tx.repo(projectRepository);
    if (changes.slug && changes.slug !== project.slug && (await projects.slugTaken(project.orgId, changes.slug))) {
      throw new BadRequestError(`A project with slug '${changes.slug}' already exists`);
    }
    return toProject(tx, await projects.update(project.id, changes, tx.clock.now().toISOString()));
  });
}

/**
 * The project as it was, once it and everything in it are gone: only if the actor may delete
 * everything in it (every area counts what it may not, `projectRemoving`), else 403 and nothing goes.
 */
async function deleteProject(ctx: Context, access: ProjectAccess, project: ProjectRow): Promise<ProjectObject> {
  const removed = await ctx.repo(projectRepository).remove(project.id, ctx.clock.now().toISOString(), async (tx, current) => {
    if (current.hasDeleteProtection) {
      throw new BadRequestError("This project has delete protection: turn hasDeleteProtection off before deleting it");
    }
    const refused = new RefusedRemovals();
    await tx.emit(projectRemoving, { access, project: current, refused });
    refused.assertNone(`project '${current.name}'`);
    return toProject(tx, current);
  });
  if (!removed) throw new NotFoundError("Project not found");
  return removed;
}
