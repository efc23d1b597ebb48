import { z } from "zod";
import { ORG_ROLES, requireOrgRole } from "../../access/org-access.js";
import { passwordSchema } from "../admin/operations.js";
import { hashPassword } from "../../crypto/hash.js";
import { BadRequestError, PermissionDeniedError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { email, organizationSchema, userSchema } from "../../kernel/schemas.js";
import { insertOrganization } from "./create.js";
import { toOrganization, toUser } from "./view.js";

export const organizationOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an organization whose admin is the calling user",
    audience: "principal",
    input: z.object({ name: z.string().trim().min(1).max(64) }),
    output: z.object({ organization: organizationSchema }),
    async run(ctx, actor, input) {
      if (actor.type !== "user") throw new PermissionDeniedError("Only users can create organizations");
      return ctx.storage.transaction(async (tx) => {
        const org = await insertOrganization(ctx, tx, input.name);
        const now = ctx.clock.now().toISOString();
        await tx.tables.orgMemberships.insert({ id: newId(), orgId: org.id, userId: actor.userId, role: "admin", createdAt: now, updatedAt: now });
        return { organization: toOrganization(org) };
      });
    },
  }),

  createUser: defineOperation({
    name: "createUser",
    summary: "Create a user in an organization (organization admins only)",
    audience: "principal",
    input: z.object({
      orgId: z.string().min(1),
      email,
      password: passwordSchema,
      firstName: z.string().max(64).optional(),
      lastName: z.string().max(64).optional(),
      role: z.enum(ORG_ROLES).default("member"),
    }),
    output: z.object({ user: userSchema.extend({ organizationRole: z.enum(ORG_ROLES) }) }),
    async run(ctx, actor, input) {
      await requireOrgRole(ctx, actor, input.orgId, ["admin"]);
      const address = input.email.toLowerCase();
      const passwordHash = await hashPassword(input.password);
      return ctx.storage.transaction(async (tx) => {
        if (await tx.tables.users.findOne({ email: address })) throw new BadRequestError("A user with this e-mail already exists");
        const now = ctx.clock.now().toISOString();
        const user = {
          id: newId(),
          email: address,
          username: address,
          passwordHash,
          firstName: input.firstName ?? "",
          lastName: input.lastName ?? "",
          isEmailVerified: false,
          createdAt: now,
          updatedAt: now,
        };
        await tx.tables.users.insert(user);
        await tx.tables.orgMemberships.insert({ id: newId(), orgId: input.orgId, userId: user.id, role: input.role, createdAt: now, updatedAt: now });
        return { user: { ...toUser(user), organizationRole: input.role } };
      });
    },
  }),
};
