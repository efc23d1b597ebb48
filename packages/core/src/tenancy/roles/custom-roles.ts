import { z } from "zod";
import { loadProjectAccess } from "../../access/project-access.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { assertWithinBoundary } from "../memberships/role-assignments.js";
import { defineOperation } from "../../kernel/operation.js";
import { findBuiltInProjectRole, permissionRulesSchema, type PermissionRule } from "../../permissions/index.js";
import { isoDateTime, slugPattern, uuid } from "../../kernel/schemas.js";
import type { AccessRow } from "../../access/tables.js";

export const customRoleSchema = z.object({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  projectId: z.string(),
  description: z.string(),
  permissions: permissionRulesSchema,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const roleSlug = z.string().min(1).max(64).regex(slugPattern, "lower-case letters, digits and hyphens");

const toCustomRole = (r: AccessRow<"projectRoles">) => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  projectId: r.projectId,
  description: r.description,
  permissions: r.permissions as PermissionRule[],
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const roleRef = z.object({ projectId: z.string().min(1), roleId: z.string().min(1) });

export const customRoleOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a custom project role",
    audience: "principal",
    input: z.object({
      projectId: z.string().min(1),
      slug: roleSlug,
      name: z.string().trim().min(1).max(64),
      description: z.string().max(500).default(""),
      permissions: permissionRulesSchema,
    }),
    output: z.object({ role: customRoleSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("create", "role");
      if (findBuiltInProjectRole(input.slug)) throw new BadRequestError(`'${input.slug}' is a built-in role`);
      assertWithinBoundary(access, input.permissions);
      if (await ctx.storage.tables.projectRoles.findOne({ projectId: access.project.id, slug: input.slug })) {
        throw new BadRequestError(`A role with slug '${input.slug}' already exists`);
      }
      const now = ctx.clock.now().toISOString();
      const row = {
        id: newId(),
        projectId: access.project.id,
        slug: input.slug,
        name: input.name,
        description: input.description,
        permissions: input.permissions,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.storage.tables.projectRoles.insert(row);
      return { role: toCustomRole(row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a project's custom roles with their permissions",
    audience: "principal",
    input: z.object({ projectId: z.string().min(1) }),
    output: z.object({ roles: z.array(customRoleSchema) }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("read", "role");
      const rows = await ctx.storage.tables.projectRoles.find({ projectId: access.project.id }, { orderBy: [["createdAt", "asc"]] });
      return { roles: rows.map(toCustomRole) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a custom project role",
    audience: "principal",
    input: roleRef,
    output: z.object({ role: customRoleSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("read", "role");
      const row = await ctx.storage.tables.projectRoles.findOne({ id: input.roleId, projectId: access.project.id });
      if (!row) throw new NotFoundError("Role not found");
      return { role: toCustomRole(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a custom project role",
    audience: "principal",
    input: roleRef.extend({
      slug: roleSlug.optional(),
      name: z.string().trim().min(1).max(64).optional(),
      description: z.string().max(500).optional(),
      permissions: permissionRulesSchema.optional(),
    }),
    output: z.object({ role: customRoleSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("edit", "role");
      if (input.permissions) assertWithinBoundary(access, input.permissions);
      return ctx.storage.transaction(async (tx) => {
        const row = await tx.tables.projectRoles.findOne({ id: input.roleId, projectId: access.project.id });
        if (!row) throw new NotFoundError("Role not found");
        if (input.slug && input.slug !== row.slug) {
          if (findBuiltInProjectRole(input.slug)) throw new BadRequestError(`'${input.slug}' is a built-in role`);
          if (await tx.tables.projectRoles.findOne({ projectId: access.project.id, slug: input.slug })) {
            throw new BadRequestError(`A role with slug '${input.slug}' already exists`);
          }
        }
        const patch = {
          ...(input.slug !== undefined && { slug: input.slug }),
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.permissions !== undefined && { permissions: input.permissions }),
          updatedAt: ctx.clock.now().toISOString(),
        };
        await tx.tables.projectRoles.update({ id: row.id }, patch);
        return { role: toCustomRole({ ...row, ...patch }) };
      });
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a custom project role that no membership uses",
    audience: "principal",
    input: roleRef,
    output: z.object({ role: customRoleSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.require("delete", "role");
      return ctx.storage.transaction(async (tx) => {
        const row = await tx.tables.projectRoles.findOne({ id: input.roleId, projectId: access.project.id });
        if (!row) throw new NotFoundError("Role not found");
        if ((await tx.tables.membershipRoles.count({ customRoleId: row.id })) > 0) {
          throw new BadRequestError("The role is assigned to memberships; reassign them first");
        }
        await tx.tables.projectRoles.delete({ id: row.id });
        return { role: toCustomRole(row) };
      });
    },
  }),
};
