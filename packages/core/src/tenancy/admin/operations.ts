import { hashPassword } from "../../crypto/hash.js";
import { BadRequestError, UniqueViolationError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { issueAccessToken } from "../auth/tokens.js";
import { identityRepository } from "../identities/repository.js";
import { organizationRepository } from "../organizations/repository.js";
import { toOrganization } from "../organizations/view.js";
import { userRepository } from "../users/repository.js";
import { toUser } from "../users/view.js";
import { adminRepository } from "./repository.js";
import { bootstrapInput, bootstrapOutput } from "./schemas.js";

const alreadySetUp = () => new BadRequestError("This instance is already set up");

export const adminOperations = {
  bootstrap: defineOperation({
    name: "bootstrap",
    summary: "Set up a new instance: its first user, organization and an admin machine identity",
    audience: "public",
    input: bootstrapInput,
    output: bootstrapOutput,
    async run(ctx, _actor, input) {
      const passwordHash = await hashPassword(input.password);
      try {
        return await ctx.withTransaction(async (tx) => {
          if ((await tx.repo(userRepository).count()) > 0) throw alreadySetUp();
          await tx.repo(adminRepository).claimBootstrap();
          const user = await tx.repo(userRepository).create({ email: input.email.toLowerCase(), passwordHash });
          const org = await tx.repo(organizationRepository).create(input.organization);
          await tx.repo(organizationRepository).addMember(org.id, user.id, "admin");
          const identity = await tx.repo(identityRepository).create({ orgId: org.id, name: "bootstrap-admin", role: "admin" });
          const subject = { actorType: "identity" as const, actorId: identity.id, orgId: org.id };
          const { token } = await issueAccessToken(tx, subject, ctx.config.identityTokenTtlSeconds);
          return {
            user: toUser(user),
            organization: toOrganization(org),
            identity: { id: identity.id, name: identity.name, credentials: { token } },
          };
        });
      } catch (error) {
        if (error instanceof UniqueViolationError) throw alreadySetUp();
        throw error;
      }
    },
  }),
};
