import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { revokeLease } from "../leases/lifecycle.js";
import { leaseRepository } from "../leases/repository.js";
import { placeOf, requireDynamicSecret } from "../lookup.js";
import { callProvider, parseInputs } from "../provider-call.js";
import { providerOf } from "../providers.js";
import { openInputs, sealInputs } from "../sealing.js";
import { dynamicSecretFolderScope } from "../scope.js";
import type { DynamicSecretRow } from "../tables.js";
import { readTtl, ttlPairProblem } from "../ttl.js";
import { dynamicSecretRepository, type DynamicSecretPatch } from "./repository.js";
import {
  createDynamicSecretInput,
  deleteDynamicSecretInput,
  dynamicSecretListOutput,
  dynamicSecretOutput,
  dynamicSecretRefInput,
  listDynamicSecretsInput,
  updateDynamicSecretInput,
} from "./schemas.js";
import { toDynamicSecret } from "./view.js";

/** A dynamic secret's TTL pair: 400 naming what is wrong with it. */
function checkTtls(defaultTtl: string, maxTtl: string | null): void {
  const defaults = readTtl(defaultTtl, "defaultTTL");
  if ("problem" in defaults) throw new BadRequestError(defaults.problem);
  const max = maxTtl === null ? null : readTtl(maxTtl, "maxTTL");
  if (max && "problem" in max) throw new BadRequestError(max.problem);
  const problem = ttlPairProblem(defaults.ms, max ? max.ms : null);
  if (problem) throw new BadRequestError(problem);
}

async function assertNameFree(ctx: Context, folderId: string, name: string, where: string): Promise<void> {
  if (await ctx.repo(dynamicSecretRepository).byName(folderId, name)) {
    throw new BadRequestError(`A dynamic secret named '${name}' already exists in ${where}`);
  }
}

/** Parses `raw` with the provider's schema and connects with it: 422 for bad inputs, 400 when the database refuses. */
async function validatedInputs(ctx: Context, type: string, raw: unknown, name: string): Promise<void> {
  const provider = providerOf(ctx, type);
  const inputs = parseInputs(provider, raw);
  await callProvider(ctx, provider, inputs, name, (call) => provider.validate(call));
}

export const dynamicSecretOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Create a dynamic secret in a folder: a provider (sql-database for PostgreSQL, MySQL and MariaDB; redis) and its root " +
      "inputs, which are validated by connecting, sealed with the project's data key and never answered again.",
    audience: "principal",
    input: createDynamicSecretInput,
    output: dynamicSecretOutput,
    use: dynamicSecretFolderScope("create-root-credential"),
    async run(ctx, _actor, input, scope) {
      const where = `${scope.env.slug}:${scope.folder.path}`;
      checkTtls(input.defaultTTL, input.maxTTL ?? null);
      await assertNameFree(ctx, scope.folder.id, input.name, where);
      await validatedInputs(ctx, input.provider.type, input.provider.inputs, input.name);
      const id = newId();
      const now = ctx.clock.now().toISOString();
      const dataKeyId = scope.project.kmsSecretManagerKeyId;
      const row: DynamicSecretRow = {
        id,
        orgId: scope.project.orgId,
        projectId: scope.project.id,
        envId: scope.env.id,
        folderId: scope.folder.id,
        name: input.name,
        type: input.provider.type,
        defaultTtl: input.defaultTTL,
        maxTtl: input.maxTTL ?? null,
        sealedInputs: await sealInputs(ctx, dataKeyId, id, input.provider.inputs),
        sealedWith: dataKeyId,
        metadata: input.metadata ?? [],
        version: 1,
        deletedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.repo(dynamicSecretRepository).create(row);
      return { dynamicSecret: toDynamicSecret(row, placeOf(scope)) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the dynamic secrets of a folder (metadata only)",
    audience: "principal",
    input: listDynamicSecretsInput,
    output: dynamicSecretListOutput,
    use: dynamicSecretFolderScope("read", "read-root-credential"),
    async run(ctx, _actor, _input, scope) {
      const rows = await ctx.repo(dynamicSecretRepository).inFolder(scope.folder.id);
      return { dynamicSecrets: rows.map((row) => toDynamicSecret(row, placeOf(scope))) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a dynamic secret by name (metadata only: its inputs are never answered)",
    audience: "principal",
    input: dynamicSecretRefInput,
    output: dynamicSecretOutput,
    use: dynamicSecretFolderScope("read", "read-root-credential"),
    async run(ctx, _actor, input, scope) {
      return { dynamicSecret: toDynamicSecret(await requireDynamicSecret(ctx, scope, input.name), placeOf(scope)) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary:
      "Update a dynamic secret: inputs (merged over the stored ones and validated by connecting), TTLs, name or metadata. " +
      "Existing leases keep their expiry.",
    audience: "principal",
    input: updateDynamicSecretInput,
    output: dynamicSecretOutput,
    use: dynamicSecretFolderScope("edit-root-credential"),
    async run(ctx, _actor, input, scope) {
      const secret = await requireDynamicSecret(ctx, scope, input.name);
      const { data } = input;
      const patch: DynamicSecretPatch = {};
      const defaultTtl = data.defaultTTL ?? secret.defaultTtl;
      const maxTtl = data.maxTTL === undefined ? secret.maxTtl : data.maxTTL;
      checkTtls(defaultTtl, maxTtl);
      if (data.defaultTTL !== undefined) patch.defaultTtl = data.defaultTTL;
      if (data.maxTTL !== undefined) patch.maxTtl = data.maxTTL;
      if (data.newName !== undefined && data.newName !== secret.name) {
        await assertNameFree(ctx, scope.folder.id, data.newName, `${scope.env.slug}:${scope.folder.path}`);
        patch.name = data.newName;
      }
      if (data.metadata !== undefined) patch.metadata = data.metadata;
      if (data.inputs !== undefined) {
        const merged = { ...((await openInputs(ctx, secret)) as Record<string, unknown>), ...data.inputs };
        await validatedInputs(ctx, secret.type, merged, secret.name);
        patch.sealedInputs = await sealInputs(ctx, scope.project.kmsSecretManagerKeyId, secret.id, merged);
        patch.sealedWith = scope.project.kmsSecretManagerKeyId;
      }
      const updated = await ctx.repo(dynamicSecretRepository).update(secret.id, patch);
      if (!updated) throw new BadRequestError(`Dynamic secret '${secret.name}' was deleted meanwhile`);
      return { dynamicSecret: toDynamicSecret(updated, placeOf(scope)) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary:
      "Delete a dynamic secret. Its leases are revoked at the provider first; when one cannot be, nothing is deleted (400) " +
      "unless isForced, which deletes anyway.",
    audience: "principal",
    input: deleteDynamicSecretInput,
    output: dynamicSecretOutput,
    use: dynamicSecretFolderScope("delete-root-credential"),
    async run(ctx, _actor, input, scope) {
      const secret = await requireDynamicSecret(ctx, scope, input.name);
      const leases = await ctx.repo(leaseRepository).unrevokedOf(secret.id);
      const failures: string[] = [];
      for (const lease of leases) {
        const outcome = await revokeLease(ctx, lease, secret, "its dynamic secret was deleted", input.isForced);
        if (!outcome.revoked && !input.isForced) failures.push(`${lease.id}: ${outcome.message}`);
      }
      if (failures.length > 0) {
        throw new BadRequestError(
          `${failures.length} of ${leases.length} leases could not be revoked, so the dynamic secret was kept ` +
            `(they are retried; delete with isForced to delete it anyway): ${failures.join("; ")}`,
        );
      }
      await ctx.repo(dynamicSecretRepository).remove(secret.id);
      return { dynamicSecret: toDynamicSecret(secret, placeOf(scope)) };
    },
  }),
};
