import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../crypto/hash.js";
import { resolveActingOrg, requireOrgRole } from "../../access/org-access.js";
import type { IdentityRow } from "../../access/tables.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { organizationScope } from "../organizations/scope.js";
import { identityRepository } from "./repository.js";
import {
  identityIdInput,
  identityOutput,
  listIdentitiesInput,
  listIdentitiesOutput,
  updateIdentityInput,
  attachUniversalAuthInput,
  attachUniversalAuthOutput,
  createClientSecretInput,
  createClientSecretOutput,
  createIdentityInput,
  createIdentityOutput,
} from "./schemas.js";
import { administeredIdentity } from "./scope.js";
import { toClientSecretData, toIdentity, toUniversalAuth } from "./view.js";

/** An identity as answers show it, with its login methods. */
async function identityAnswer(ctx: Context, identity: IdentityRow) {
  const methods = await ctx.repo(identityRepository).authMethodsOf([identity.id]);
  return toIdentity(identity, methods.get(identity.id) ?? []);
}

/**
 * Nobody changes or deletes its own identity: another admin must (DESIGN.md §11, "nobody edits
 * their own roles"). Since the caller is an admin and not the target, the organization always
 * keeps an admin.
 */
function refuseSelf(actor: Actor, identity: IdentityRow, what: string): void {
  if (actor.type === "identity" && actor.identityId === identity.id) throw new PermissionDeniedError(`An identity cannot ${what} itself`);
}

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

  get: defineOperation({
    name: "get",
    summary: "Get a machine identity of an organization the caller administers",
    audience: "principal",
    input: identityIdInput,
    output: identityOutput,
    use: administeredIdentity,
    async run(ctx, _actor, _input, { identity }) {
      return { identity: await identityAnswer(ctx, identity) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the machine identities of an organization (organization admins only)",
    audience: "principal",
    input: listIdentitiesInput,
    output: listIdentitiesOutput,
    async run(ctx, actor, input) {
      const orgId = await resolveActingOrg(ctx, actor, input.orgId);
      await requireOrgRole(ctx, actor, orgId, ["admin"]);
      const identities = ctx.repo(identityRepository);
      const rows = await identities.inOrganization(orgId);
      const methods = await identities.authMethodsOf(rows.map((r) => r.id));
      return { identities: rows.map((r) => toIdentity(r, methods.get(r.id) ?? [])), totalCount: rows.length };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Rename a machine identity or change its organization role",
    audience: "principal",
    input: updateIdentityInput,
    output: identityOutput,
    use: administeredIdentity,
    async run(ctx, actor, input, { identity }) {
      if (input.role !== undefined && input.role !== identity.role) refuseSelf(actor, identity, "change the organization role of");
      const { identityId: _, ...changes } = input;
      return { identity: await identityAnswer(ctx, await ctx.repo(identityRepository).update(identity.id, changes)) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a machine identity: its logins, client secrets, project memberships and tokens end at once",
    audience: "principal",
    input: identityIdInput,
    output: identityOutput,
    use: administeredIdentity,
    async run(ctx, actor, _input, { identity }) {
      refuseSelf(actor, identity, "delete");
      const answer = await identityAnswer(ctx, identity);
      await ctx.repo(identityRepository).remove(identity);
      return { identity: answer };
    },
  }),
};
