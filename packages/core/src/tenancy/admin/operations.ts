import { z } from "zod";
import { issueAccessToken } from "../auth/tokens.js";
import { hashPassword } from "../../crypto/hash.js";
import { BadRequestError, UniqueViolationError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { insertOrganization } from "../organizations/create.js";
import { toOrganization, toUser } from "../organizations/view.js";
import { email, organizationSchema, userSchema, uuid } from "../../kernel/schemas.js";

export const passwordSchema = z.string().min(8).max(256);

export const adminOperations = {
  bootstrap: defineOperation({
    name: "bootstrap",
    summary: "Set up a new instance: its first user, organization and an admin machine identity",
    audience: "public",
    input: z.object({ email, password: passwordSchema, organization: z.string().trim().min(1).max(64) }),
    output: z.object({
      user: userSchema,
      organization: organizationSchema,
      identity: z.object({ id: uuid, name: z.string(), credentials: z.object({ token: z.string() }) }),
    }),
    async run(ctx, _actor, input) {
      const passwordHash = await hashPassword(input.password);
      try {
        return await ctx.storage.transaction(async (tx) => {
          if ((await tx.tables.users.count()) > 0) throw new BadRequestError("This instance is already set up");
          // The fixed id makes concurrent bootstraps collide on the primary key: exactly one wins.
          await tx.tables.instanceMeta.insert({ id: "bootstrap", rootKeyCheck: "", createdAt: ctx.clock.now().toISOString() });
          const now = ctx.clock.now().toISOString();
          const user = {
            id: newId(),
            email: input.email.toLowerCase(),
            username: input.email.toLowerCase(),
            passwordHash,
            firstName: "",
            lastName: "",
            isEmailVerified: false,
            createdAt: now,
            updatedAt: now,
          };
          await tx.tables.users.insert(user);
          const org = await insertOrganization(ctx, tx, input.organization);
          await tx.tables.orgMemberships.insert({ id: newId(), orgId: org.id, userId: user.id, role: "admin", createdAt: now, updatedAt: now });
          const identity = { id: newId(), orgId: org.id, name: "bootstrap-admin", role: "admin", createdAt: now, updatedAt: now };
          await tx.tables.identities.insert(identity);
          const { token } = await issueAccessToken(
            ctx,
            tx,
            { actorType: "identity", actorId: identity.id, orgId: org.id },
            ctx.config.identityTokenTtlSeconds,
          );
          return {
            user: toUser(user),
            organization: toOrganization(org),
            identity: { id: identity.id, name: identity.name, credentials: { token } },
          };
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw new BadRequestError("This instance is already set up");
        throw error;
      }
    },
  }),
};
