import { z } from "zod";
import { requireOrgRole, resolveActingOrg } from "../../access/org-access.js";
import { projectScope } from "../../access/scope.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { BadRequestError } from "../../kernel/errors.js";
import { randomAlphanumeric, slugify } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { projectRepository } from "./repository.js";
import { createProjectInput, PROJECT_TEMPLATES, projectSchema } from "./schemas.js";
import { projectObject, toProject } from "./view.js";

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

export const projectOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a project; the caller becomes its admin",
    audience: "principal",
    input: createProjectInput,
    output: z.object({ project: projectSchema }),
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

  get: defineOperation({
    name: "get",
    summary: "Get a project",
    audience: "principal",
    input: z.object({ projectId: z.string().min(1) }),
    output: z.object({ project: projectSchema }),
    use: projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }), membership: true }),
    async run(ctx, _actor, _input, { project }) {
      return { project: await toProject(ctx, project) };
    },
  }),
};
