import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { identityRepository } from "../identities/repository.js";
import { administeredIdentity } from "../identities/scope.js";
import { toClientSecretData, toUniversalAuth } from "../identities/view.js";
import { universalAuthRepository } from "./repository.js";
import {
  clientSecretInput,
  clientSecretListOutput,
  clientSecretOutput,
  universalAuthInput,
  universalAuthOutput,
  updateUniversalAuthInput,
} from "./schemas.js";

const notAttached = () => new NotFoundError("Universal auth is not attached to this identity");
const noSuchSecret = () => new NotFoundError("Client secret not found");

/** An identity's universal auth after it is attached (organization admins only, like attaching it). */
export const universalAuthOperations = {
  get: defineOperation({
    name: "get",
    summary: "Get a machine identity's universal-auth settings",
    audience: "principal",
    input: universalAuthInput,
    output: universalAuthOutput,
    use: administeredIdentity,
    async run(ctx, _actor, _input, { identity }) {
      const auth = await ctx.repo(identityRepository).universalAuthOf(identity.id);
      if (!auth) throw notAttached();
      return { identityUniversalAuth: toUniversalAuth(auth) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Change a machine identity's universal-auth settings; tokens already issued keep their expiry",
    audience: "principal",
    input: updateUniversalAuthInput,
    output: universalAuthOutput,
    use: administeredIdentity,
    async run(ctx, _actor, input, { identity }) {
      const { identityId: _, ...changes } = input;
      const updated = await ctx.repo(universalAuthRepository).update(identity.id, (current) => {
        const ttl = changes.accessTokenTTL ?? current.accessTokenTTL;
        const maxTtl = changes.accessTokenMaxTTL ?? current.accessTokenMaxTTL;
        if (ttl > maxTtl) throw new BadRequestError("accessTokenTTL cannot exceed accessTokenMaxTTL");
        return changes;
      });
      if (!updated) throw notAttached();
      return { identityUniversalAuth: toUniversalAuth(updated) };
    },
  }),

  revoke: defineOperation({
    name: "revoke",
    summary: "Take universal auth off a machine identity: its client secrets go and its tokens end at once",
    audience: "principal",
    input: universalAuthInput,
    output: universalAuthOutput,
    use: administeredIdentity,
    async run(ctx, _actor, _input, { identity }) {
      const revoked = await ctx.repo(universalAuthRepository).revoke(identity.id);
      if (!revoked) throw notAttached();
      return { identityUniversalAuth: toUniversalAuth(revoked) };
    },
  }),

  listClientSecrets: defineOperation({
    name: "listClientSecrets",
    summary: "List a machine identity's client secrets that are not revoked (never the secrets themselves)",
    audience: "principal",
    input: universalAuthInput,
    output: clientSecretListOutput,
    use: administeredIdentity,
    async run(ctx, _actor, _input, { identity }) {
      const auth = await ctx.repo(identityRepository).universalAuthOf(identity.id);
      if (!auth) throw notAttached();
      const secrets = await ctx.repo(universalAuthRepository).activeClientSecrets(identity.id);
      return { clientSecretData: secrets.map((s) => toClientSecretData(s, auth.id)) };
    },
  }),

  getClientSecret: defineOperation({
    name: "getClientSecret",
    summary: "Get one client secret's details (never the secret itself)",
    audience: "principal",
    input: clientSecretInput,
    output: clientSecretOutput,
    use: administeredIdentity,
    async run(ctx, _actor, input, { identity }) {
      const auth = await ctx.repo(identityRepository).universalAuthOf(identity.id);
      const secret = auth && (await ctx.repo(universalAuthRepository).clientSecret(identity.id, input.clientSecretId));
      if (!auth || !secret) throw noSuchSecret();
      return { clientSecretData: toClientSecretData(secret, auth.id) };
    },
  }),

  revokeClientSecret: defineOperation({
    name: "revokeClientSecret",
    summary: "Revoke a client secret: it logs in no more (tokens it already earned stay valid)",
    audience: "principal",
    input: clientSecretInput,
    output: clientSecretOutput,
    use: administeredIdentity,
    async run(ctx, _actor, input, { identity }) {
      const auth = await ctx.repo(identityRepository).universalAuthOf(identity.id);
      const secret = auth && (await ctx.repo(universalAuthRepository).revokeClientSecret(identity.id, input.clientSecretId));
      if (!auth || !secret) throw noSuchSecret();
      return { clientSecretData: toClientSecretData(secret, auth.id) };
    },
  }),
};
