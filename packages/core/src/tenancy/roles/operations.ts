import { projectScope } from "../../access/scope.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { builtInProjectRoles, findBuiltInProjectRole, type PermissionRule } from "../../permissions/index.js";
import { assertHoldsAll, assertWithinBoundary } from "../grants.js";
import { roleRepository } from "./repository.js";
import {
  createCustomRoleInput,
  createCustomRoleOutput,
  deleteCustomRoleInput,
  deleteCustomRoleOutput,
  getCustomRoleInput,
  getCustomRoleOutput,
  listCustomRolesInput,
  listCustomRolesOutput,
  listRolesInput,
  listRolesOutput,
  updateCustomRoleInput,
  updateCustomRoleOutput,
} from "./schemas.js";
import { toBuiltInRole, toCustomRole, toProjectRole } from "./view.js";

/** Roles are read and changed with permissions on `role` in the project the input names. */
const roleScope = (action: "read" | "create" | "edit" | "delete") =>
  projectScope<{ projectId: string }>({ project: (input) => ({ projectId: input.projectId }), permission: { action, subject: "role" } });

const roleNotFound = () => new NotFoundError("Role not found");

/** A new slug may name neither a built-in role nor another role of the project. */
function assertNotBuiltIn(slug: string): void {
  if (findBuiltInProjectRole(slug)) throw new BadRequestError(`'${slug}' is a built-in role`);
}
const slugTaken = (slug: string) => new BadRequestError(`A role with slug '${slug}' already exists`);

export const roleOperations = {
  list: defineOperation({
    name: "list",
    summary: "List a project's roles: the built-ins, then custom roles",
    audience: "principal",
    input: listRolesInput,
    output: listRolesOutput,
    use: roleScope("read"),
    async run(ctx, _actor, _input, { project }) {
      const custom = await ctx.repo(roleRepository).customOf(project.id);
      return { roles: [...Object.values(builtInProjectRoles).map((role) => toBuiltInRole(role, project)), ...custom.map(toProjectRole)] };
    },
  }),
};

export const customRoleOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a custom project role",
    audience: "principal",
    input: createCustomRoleInput,
    output: createCustomRoleOutput,
    use: roleScope("create"),
    async run(ctx, _actor, input, { access, project }) {
      assertNotBuiltIn(input.slug);
      // Custom roles are held for good by whoever is given them.
      assertWithinBoundary(access, input.permissions, { now: ctx.clock.now(), until: Number.POSITIVE_INFINITY });
      const roles = ctx.repo(roleRepository);
      if (await roles.bySlug(project.id, input.slug)) throw slugTaken(input.slug);
      const row = await roles.create({
        projectId: project.id,
        slug: input.slug,
        name: input.name,
        description: input.description,
        permissions: input.permissions,
      });
      return { role: toCustomRole(row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's custom roles with their permissions",
    audience: "principal",
    input: listCustomRolesInput,
    output: listCustomRolesOutput,
    use: roleScope("read"),
    async run(ctx, _actor, _input, { project }) {
      return { roles: (await ctx.repo(roleRepository).customOf(project.id)).map(toCustomRole) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a custom project role",
    audience: "principal",
    input: getCustomRoleInput,
    output: getCustomRoleOutput,
    use: roleScope("read"),
    async run(ctx, _actor, input, { project }) {
      const row = await ctx.repo(roleRepository).custom(project.id, input.roleId);
      if (!row) throw roleNotFound();
      return { role: toCustomRole(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a custom project role",
    audience: "principal",
    input: updateCustomRoleInput,
    output: updateCustomRoleOutput,
    use: roleScope("edit"),
    async run(ctx, _actor, input, { access, project }) {
      if (input.permissions) assertWithinBoundary(access, input.permissions, { now: ctx.clock.now(), until: Number.POSITIVE_INFINITY });
      const updated = await ctx.repo(roleRepository).update(project.id, input.roleId, async (row, tx) => {
        // New rules change the access of everyone holding the role.
        if (input.permissions) assertHoldsAll(access, row.permissions as PermissionRule[], "You cannot change a role granting permissions you do not hold yourself");
        if (input.slug && input.slug !== row.slug) {
          assertNotBuiltIn(input.slug);
          if (await tx.repo(roleRepository).bySlug(project.id, input.slug)) throw slugTaken(input.slug);
        }
        return {
          ...(input.slug !== undefined && { slug: input.slug }),
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.permissions !== undefined && { permissions: input.permissions }),
        };
      });
      if (!updated) throw roleNotFound();
      return { role: toCustomRole(updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a custom project role that no membership uses",
    audience: "principal",
    input: deleteCustomRoleInput,
    output: deleteCustomRoleOutput,
    use: roleScope("delete"),
    async run(ctx, _actor, input, { project }) {
      const deleted = await ctx.repo(roleRepository).deleteUnused(project.id, input.roleId);
      if (!deleted) throw roleNotFound();
      if (deleted === "in-use") throw new BadRequestError("The role is assigned to memberships; reassign them first");
      return { role: toCustomRole(deleted) };
    },
  }),
};
