import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { placeOf, requireDynamicSecret, requireLease } from "../lookup.js";
import { dynamicSecretFolderScope } from "../scope.js";
import { toDynamicSecret } from "../secrets/view.js";
import { createLease, renewLease, revokeLease, ttlMs } from "./lifecycle.js";
import { leaseRepository } from "./repository.js";
import {
  createLeaseInput,
  createLeaseOutput,
  leaseListOutput,
  leaseOutput,
  leaseRefInput,
  leaseWithSecretOutput,
  listLeasesInput,
  renewLeaseInput,
  revokeLeaseInput,
} from "./schemas.js";
import { toLease } from "./view.js";

export const leaseOperations = {
  createLease: defineOperation({
    name: "createLease",
    summary:
      "Lease a dynamic secret: the provider creates a user of its own that expires after `ttl` (default the secret's " +
      "defaultTTL, at most its maxTTL). Its credentials (`data`) are answered here only. At most 100 active leases per secret.",
    audience: "principal",
    input: createLeaseInput,
    output: createLeaseOutput,
    use: dynamicSecretFolderScope("lease"),
    async run(ctx, _actor, input, scope) {
      const secret = await requireDynamicSecret(ctx, scope, input.dynamicSecretName);
      const { lease, data } = await createLease(ctx, secret, { ttl: input.ttl });
      return { lease: toLease(lease), dynamicSecret: toDynamicSecret(secret, placeOf(scope)), data };
    },
  }),

  listLeases: defineOperation({
    name: "listLeases",
    summary: "List a dynamic secret's leases not yet revoked (never their credentials)",
    audience: "principal",
    input: listLeasesInput,
    output: leaseListOutput,
    use: dynamicSecretFolderScope("lease"),
    async run(ctx, _actor, input, scope) {
      const secret = await requireDynamicSecret(ctx, scope, input.name);
      return { leases: (await ctx.repo(leaseRepository).unrevokedOf(secret.id)).map(toLease) };
    },
  }),

  getLease: defineOperation({
    name: "getLease",
    summary: "Get a lease with its dynamic secret (never its credentials)",
    audience: "principal",
    input: leaseRefInput,
    output: leaseWithSecretOutput,
    use: dynamicSecretFolderScope("lease"),
    async run(ctx, _actor, input, scope) {
      const { lease, secret } = await requireLease(ctx, scope, input.leaseId);
      return { lease: { ...toLease(lease), dynamicSecret: toDynamicSecret(secret, placeOf(scope)) } };
    },
  }),

  renewLease: defineOperation({
    name: "renewLease",
    summary:
      "Renew a lease: its expiry moves `ttl` (default the secret's defaultTTL) later, at the provider too; refused beyond " +
      "maxTTL counted from the lease's creation, and for an expired or revoked lease.",
    audience: "principal",
    input: renewLeaseInput,
    output: leaseOutput,
    use: dynamicSecretFolderScope("lease"),
    async run(ctx, _actor, input, scope) {
      const { lease, secret } = await requireLease(ctx, scope, input.leaseId);
      return { lease: toLease(await renewLease(ctx, lease, secret, input.ttl === undefined ? undefined : ttlMs(input.ttl, "ttl"))) };
    },
  }),

  revokeLease: defineOperation({
    name: "revokeLease",
    summary:
      "Revoke a lease: the provider removes its user. When the provider fails, the lease is kept as revoking and retried by the " +
      "expiry job (400 with the reason), unless isForced, which records it revoked anyway.",
    audience: "principal",
    input: revokeLeaseInput,
    output: leaseOutput,
    use: dynamicSecretFolderScope("lease"),
    async run(ctx, _actor, input, scope) {
      const { lease, secret } = await requireLease(ctx, scope, input.leaseId);
      if (lease.status === "revoked") throw new BadRequestError("The lease is already revoked");
      const outcome = await revokeLease(ctx, lease, secret, "revoked on request", input.isForced);
      if (!outcome.revoked) throw new BadRequestError(`The lease could not be revoked: ${outcome.message}`);
      return { lease: toLease(outcome.lease) };
    },
  }),
};
