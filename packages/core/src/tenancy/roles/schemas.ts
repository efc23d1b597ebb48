import { z } from "zod";
import { isoDateTime, slugPattern, uuid } from "../../kernel/schemas.js";
import { permissionRulesSchema } from "../../permissions/index.js";

/** SPEC.md's project role. */
export const projectRoleSchema = z.object({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  projectId: z.string(),
  description: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

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

const roleRef = z.object({ projectId: z.string().min(1), roleId: z.string().min(1) });

const oneCustomRole = z.object({ role: customRoleSchema });

export const listRolesInput = z.object({ projectId: z.string().min(1) });
export const listRolesOutput = z.object({ roles: z.array(projectRoleSchema) });

export const createCustomRoleInput = z.object({
  projectId: z.string().min(1),
  slug: roleSlug,
  name: z.string().trim().min(1).max(64),
  description: z.string().max(500).default(""),
  permissions: permissionRulesSchema,
});
export const createCustomRoleOutput = oneCustomRole;

export const listCustomRolesInput = z.object({ projectId: z.string().min(1) });
export const listCustomRolesOutput = z.object({ roles: z.array(customRoleSchema) });

export const getCustomRoleInput = roleRef;
export const getCustomRoleOutput = oneCustomRole;

export const updateCustomRoleInput = roleRef.extend({
  slug: roleSlug.optional(),
  name: z.string().trim().min(1).max(64).optional(),
  description: z.string().max(500).optional(),
  permissions: permissionRulesSchema.optional(),
});
export const updateCustomRoleOutput = oneCustomRole;

export const deleteCustomRoleInput = roleRef;
export const deleteCustomRoleOutput = oneCustomRole;
