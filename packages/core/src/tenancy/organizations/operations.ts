import { hashPassword } from "../../crypto/hash.js";
import { BadRequestError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { userRepository } from "../users/repository.js";
import { toUser } from "../users/view.js";
import { organizationRepository } from "./repository.js";
import { createOrganizationInput, createOrganizationOutput, createUserInput, createUserOutput } from "./schemas.js";
import { organizationScope } from "./scope.js";
import { toOrganization } from "./view.js";

export const organizationOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create an organization whose admin is the calling user",
    audience: "principal",
    input: createOrganizationInput,
    output: createOrganizationOutput,
    async run(ctx, actor, input) {
      if (actor.type !== "user") throw new PermissionDeniedError("Only users can create organizations");
      return ctx.withTransaction(async (tx) => {
        const org = await tx.repo(organizationRepository).create(input.name);
        await tx.repo(organizationRepository).addMember(org.id, actor.userId, "admin");
        return { organization: toOrganization(org) };
      });
    },
  }),

  createUser: defineOperation({
    name: "createUser",
    summary: "Create a user in an organization (organization admins only)",
    audience: "principal",
    input: createUserInput,
    output: createUserOutput,
    use: organizationScope<{ orgId: string }>({ organization: (input) => input.orgId, roles: ["admin"] }),
    async run(ctx, _actor, input) {
      const address = input.email.toLowerCase();
      const passwordHash = await hashPassword(input.password);
      return ctx.withTransaction(async (tx) => {
        const users = tx.repo(userRepository);
        if (await users.byEmail(address)) throw new BadRequestError("A user with this e-mail already exists");
        const user = await users.create({ email: address, passwordHash, firstName: input.firstName, lastName: input.lastName });
        await tx.repo(organizationRepository).addMember(input.orgId, user.id, input.role);
        return { user: { ...toUser(user), organizationRole: input.role } };
      });
    },
  }),
};
