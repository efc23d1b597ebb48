import { z } from "zod";
import { loadProjectAccess } from "../../access/project-access.js";
import { defineOperation } from "../../kernel/operation.js";
import { builtInProjectRoles } from "../../permissions/index.js";
import { projectRoleSchema } from "./schemas.js";

export const roleOperations = {
  list: defineOperation({
    name: "list",
    summary: "List a project's roles: the built-ins, then custom roles",
    audience: "principal",
    input: z.object({ projectId: z.string().min(1) }),
    output: z.object({ roles: z.array(projectRoleSchema) }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("read", "role");
      const project = access.project;
      const custom = await ctx.storage.tables.projectRoles.find({ projectId: project.id }, { orderBy: [["createdAt", "asc"]] });
      return {
        roles: [
          // Built-ins are not stored: they take the project's timestamps.
          ...Object.values(builtInProjectRoles).map((role) => ({
            id: role.id,
            name: role.name,
            slug: role.slug,
            projectId: project.id,
            description: role.description,
            createdAt: project.createdAt,
            updatedAt: project.createdAt,
          })),
          ...custom.map((role) => ({
            id: role.id,
            name: role.name,
            slug: role.slug,
            projectId: role.projectId,
            description: role.description,
            createdAt: role.createdAt,
            updatedAt: role.updatedAt,
          })),
        ],
      };
    },
  }),
};
