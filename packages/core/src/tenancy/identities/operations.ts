import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ORG_ROLES, requireOrgRole } from "../../access/org-access.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { sha256Hex } from "../../crypto/hash.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { isoDateTime, uuid } from "../../kernel/schemas.js";
import { toClientSecretData, toIdentity, toUniversalAuth } from "./view.js";

const MAX_TTL = 315_360_000; // ten years, seconds

const identitySchema = z.object({
  id: uuid,
  name: z.string(),
  orgId: uuid,
  role: z.enum(ORG_ROLES),
  authMethods: z.array(z.string()),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const trustedIps = z.array(z.object({ ipAddress: z.string().min(1).max(64) })).max(50);

const universalAuthSchema = z.object({
  id: uuid,
  clientId: z.string(),
  identityId: uuid,
  accessTokenTTL: z.number().int(),
  accessTokenMaxTTL: z.number().int(),
  accessTokenNumUsesLimit: z.number().int(),
  clientSecretTrustedIps: trustedIps,
  accessTokenTrustedIps: trustedIps,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** An identity the actor administers: 404 outside the actor's organizations, 403 for non-admins. */
async function administeredIdentity(ctx: Context, actor: Actor, identityId: string) {
  const identity = await ctx.storage.tables.identities.get(identityId);
  if (!identity) throw new NotFoundError("Identity not found");
  await requireOrgRole(ctx, actor, identity.orgId, ["admin"]).catch((error) => {
    throw error instanceof NotFoundError ? new NotFoundError("Identity not found") : error;
  });
  return identity;
}

export const identityOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a machine identity in an organization",
    audience: "principal",
    input: z.object({ name: z.string().trim().min(1).max(64), organizationId: z.string().min(1), role: z.enum(ORG_ROLES).default("member") }),
    output: z.object({ identity: identitySchema }),
    async run(ctx, actor, input) {
      await requireOrgRole(ctx, actor, input.organizationId, ["admin"]);
      const now = ctx.clock.now().toISOString();
      const identity = { id: newId(), orgId: input.organizationId, name: input.name, role: input.role, createdAt: now, updatedAt: now };
      await ctx.storage.tables.identities.insert(identity);
      return { identity: toIdentity(identity, []) };
    },
  }),

  attachUniversalAuth: defineOperation({
    name: "attachUniversalAuth",
    summary: "Attach universal auth (client id + client secrets) to a machine identity",
    audience: "principal",
    input: z.object({
      identityId: z.string().min(1),
      accessTokenTTL: z.number().int().min(1).max(MAX_TTL).optional(),
      accessTokenMaxTTL: z.number().int().min(1).max(MAX_TTL).optional(),
      accessTokenNumUsesLimit: z.number().int().min(0).default(0),
      clientSecretTrustedIps: trustedIps.default([]),
      accessTokenTrustedIps: trustedIps.default([]),
    }),
    output: z.object({ identityUniversalAuth: universalAuthSchema }),
    async run(ctx, actor, input) {
      const identity = await administeredIdentity(ctx, actor, input.identityId);
      const ttl = input.accessTokenTTL ?? ctx.config.identityTokenTtlSeconds;
      const maxTtl = input.accessTokenMaxTTL ?? Math.max(ttl, ctx.config.identityTokenTtlSeconds);
      if (ttl > maxTtl) throw new BadRequestError("accessTokenTTL cannot exceed accessTokenMaxTTL");
      if (await ctx.storage.tables.universalAuths.findOne({ identityId: identity.id })) {
        throw new BadRequestError("Universal auth is already attached to this identity");
      }
      const now = ctx.clock.now().toISOString();
      const row = {
        id: newId(),
        identityId: identity.id,
        clientId: newId(),
        accessTokenTTL: ttl,
        accessTokenMaxTTL: maxTtl,
        accessTokenNumUsesLimit: input.accessTokenNumUsesLimit,
        clientSecretTrustedIps: input.clientSecretTrustedIps,
        accessTokenTrustedIps: input.accessTokenTrustedIps,
        failedLogins: 0,
        lockedUntil: null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.storage.tables.universalAuths.insert(row);
      return { identityUniversalAuth: toUniversalAuth(row) };
    },
  }),

  createClientSecret: defineOperation({
    name: "createClientSecret",
    summary: "Create a universal-auth client secret; it is shown only in this response",
    audience: "principal",
    input: z.object({
      identityId: z.string().min(1),
      description: z.string().max(256).default(""),
      numUsesLimit: z.number().int().min(0).default(0),
      ttl: z.number().int().min(0).max(MAX_TTL).default(0),
    }),
    output: z.object({
      clientSecret: z.string(),
      clientSecretData: z.object({
        id: uuid,
        description: z.string(),
        clientSecretPrefix: z.string(),
        clientSecretNumUses: z.number().int(),
        clientSecretNumUsesLimit: z.number().int(),
        clientSecretTTL: z.number().int(),
        identityUAId: uuid,
        isClientSecretRevoked: z.boolean(),
        createdAt: isoDateTime,
        updatedAt: isoDateTime,
      }),
    }),
    async run(ctx, actor, input) {
      const identity = await administeredIdentity(ctx, actor, input.identityId);
      const auth = await ctx.storage.tables.universalAuths.findOne({ identityId: identity.id });
      if (!auth) throw new BadRequestError("Universal auth is not attached to this identity");
      const clientSecret = randomBytes(32).toString("hex");
      const now = ctx.clock.now();
      const row = {
        id: newId(),
        identityId: identity.id,
        secretHash: sha256Hex(clientSecret),
        prefix: clientSecret.slice(0, 4),
        description: input.description,
        ttl: input.ttl,
        numUses: 0,
        numUsesLimit: input.numUsesLimit,
        isRevoked: false,
        expiresAt: input.ttl ? new Date(now.getTime() + input.ttl * 1000).toISOString() : null,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      await ctx.storage.tables.clientSecrets.insert(row);
      return { clientSecret, clientSecretData: toClientSecretData(row, auth.id) };
    },
  }),
};
