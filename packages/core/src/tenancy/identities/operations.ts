import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../crypto/hash.js";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { organizationScope } from "../organizations/scope.js";
import { identityRepository } from "./repository.js";
import {
  attachUniversalAuthInput,
  attachUniversalAuthOutput,
  createClientSecretInput,
  createClientSecretOutput,
  createIdentityInput,
  createIdentityOutput,
} from "./schemas.js";
import { administeredIdentity } from "./scope.js";
import { toClientSecretData, toIdentity, toUniversalAuth } from "./view.js";

export const identityOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a machine identity in an organization",
    audience: "principal",
    input: createIdentityInput,
    output: createIdentityOutput,
    use: organizationScope<{ organizationId: string }>({ organization: (input) => input.organizationId, roles: ["admin"] }),
    async run(ctx, _actor, input) {
      const identity = await ctx.repo(identityRepository).create({ orgId: input.organizationId, name: input.name, role: input.role });
      return { identity: toIdentity(identity, []) };
    },
  }),

  attachUniversalAuth: defineOperation({
    name: "attachUniversalAuth",
    summary: "Attach universal auth (client id + client secrets) to a machine identity",
    audience: "principal",
    input: attachUniversalAuthInput,
    output: attachUniversalAuthOutput,
    use: administeredIdentity,
    async run(ctx, _actor, input, { identity }) {
      const ttl = input.accessTokenTTL ?? ctx.config.identityTokenTtlSeconds;
      const maxTtl = input.accessTokenMaxTTL ?? Math.max(ttl, ctx.config.identityTokenTtlSeconds);
      if (ttl > maxTtl) throw new BadRequestError("accessTokenTTL cannot exceed accessTokenMaxTTL");
      const identities = ctx.repo(identityRepository);
      if (await identities.universalAuthOf(identity.id)) throw new BadRequestError("Universal auth is already attached to this identity");
      const row = await identities.attachUniversalAuth({
        identityId: identity.id,
        accessTokenTTL: ttl,
        accessTokenMaxTTL: maxTtl,
        accessTokenNumUsesLimit: input.accessTokenNumUsesLimit,
        clientSecretTrustedIps: input.clientSecretTrustedIps,
        accessTokenTrustedIps: input.accessTokenTrustedIps,
      });
      return { identityUniversalAuth: toUniversalAuth(row) };
    },
  }),

  createClientSecret: defineOperation({
    name: "createClientSecret",
    summary: "Create a universal-auth client secret; it is shown only in this response",
    audience: "principal",
    input: createClientSecretInput,
    output: createClientSecretOutput,
    use: administeredIdentity,
    async run(ctx, _actor, input, { identity }) {
      const identities = ctx.repo(identityRepository);
      const auth = await identities.universalAuthOf(identity.id);
      if (!auth) throw new BadRequestError("Universal auth is not attached to this identity");
      const clientSecret = randomBytes(32).toString("hex");
      const now = ctx.clock.now();
      const row = await identities.addClientSecret(
        {
          identityId: identity.id,
          secretHash: sha256Hex(clientSecret),
          prefix: clientSecret.slice(0, 4),
          description: input.description,
          ttl: input.ttl,
          numUsesLimit: input.numUsesLimit,
          expiresAt: input.ttl ? new Date(now.getTime() + input.ttl * 1000).toISOString() : null,
        },
        now,
      );
      return { clientSecret, clientSecretData: toClientSecretData(row, auth.id) };
    },
  }),
};
