import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { generateMaterial } from "../algorithms/material.js";
import { keyScope, kmsProjectScope } from "../scope.js";
import type { CmekKeyRow } from "../tables.js";
import { chooseAlgorithm } from "./choose-algorithm.js";
import { cmekRepository, type KeyPatch } from "./repository.js";
import { refuseDisabled } from "./refusals.js";
import { rotateKey } from "./rotate.js";
import { nextRotationAt } from "./rotation-schedule.js";
import { createKeyInput, keyByNameInput, keyRefInput, kmsKeyListOutput, kmsKeyOutput, listKeysInput, updateKeyInput } from "./schemas.js";
import { toKmsKey } from "./view.js";

const taken = (name: string) => new BadRequestError(`A KMS key named '${name}' already exists in this project`);

export const keyOperations = {
  createKey: defineOperation({
    name: "createKey",
    summary:
      "Create a KMS key in a kms project. Its material is generated here, sealed under the project's data key and never " +
      "returned: encrypt-decrypt (aes-256-gcm, aes-128-gcm), sign-verify (RSA_2048/3072/4096, ECC_NIST_P256/P384, " +
      "ECC_NIST_EDWARDS25519) or generate-verify-mac (HMAC_SHA_256/384/512).",
    audience: "principal",
    input: createKeyInput,
    output: kmsKeyOutput,
    use: kmsProjectScope("create"),
    async run(ctx, _actor, input, { project }) {
      const chosen = chooseAlgorithm(input);
      if ("problem" in chosen) throw new BadRequestError(chosen.problem);
      const repo = ctx.repo(cmekRepository);
      if (await repo.byName(project.id, input.name)) throw taken(input.name);
      const material = await generateMaterial(chosen.algorithm);
      const now = ctx.clock.now();
      const key: CmekKeyRow = {
        id: newId(),
        orgId: project.orgId,
        projectId: project.id,
        name: input.name,
        description: input.description ?? "",
        keyUsage: input.keyUsage,
        algorithm: chosen.algorithm,
        version: 1,
        isDisabled: false,
        rotationIntervalDays: input.rotationIntervalDays ?? null,
        nextRotationAt: nextRotationAt(now, input.rotationIntervalDays),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      await repo.create(key, project.kmsSecretManagerKeyId, material);
      return { key: toKmsKey(key) };
    },
  }),

  listKeys: defineOperation({
    name: "listKeys",
    summary: "List a kms project's keys by name, a page at a time (offset, limit ≤ 100), optionally those whose name contains `search`",
    audience: "principal",
    input: listKeysInput,
    output: kmsKeyListOutput,
    use: kmsProjectScope("read"),
    async run(ctx, _actor, input, { project }) {
      const query = { offset: input.offset, limit: input.limit, direction: input.orderDirection, search: input.search || undefined };
      const { rows, totalCount } = await ctx.repo(cmekRepository).list(project.id, query);
      return { keys: rows.map(toKmsKey), totalCount };
    },
  }),

  getKey: defineOperation({
    name: "getKey",
    summary: "Get a KMS key by id (never its material)",
    audience: "principal",
    input: keyRefInput,
    output: kmsKeyOutput,
    use: keyScope("read"),
    run: async (_ctx, _actor, _input, { record }) => ({ key: toKmsKey(record) }),
  }),

  getKeyByName: defineOperation({
    name: "getKeyByName",
    summary: "Get a KMS key by its name in a kms project",
    audience: "principal",
    input: keyByNameInput,
    output: kmsKeyOutput,
    use: kmsProjectScope("read"),
    async run(ctx, _actor, input, { project }) {
      const key = await ctx.repo(cmekRepository).byName(project.id, input.keyName);
      if (!key) throw new NotFoundError(`No KMS key named '${input.keyName}' in this project`);
      return { key: toKmsKey(key) };
    },
  }),

  updateKey: defineOperation({
    name: "updateKey",
    summary: "Rename a KMS key, change its description, disable or enable it, or change its rotation interval",
    audience: "principal",
    input: updateKeyInput,
    output: kmsKeyOutput,
    use: keyScope("edit"),
    async run(ctx, _actor, input, { record }) {
      const repo = ctx.repo(cmekRepository);
      if (input.name !== undefined && input.name !== record.name && (await repo.byName(record.projectId, input.name))) throw taken(input.name);
      const patch: KeyPatch = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.description !== undefined) patch.description = input.description;
      if (input.isDisabled !== undefined) patch.isDisabled = input.isDisabled;
      if (input.rotationIntervalDays !== undefined) {
        patch.rotationIntervalDays = input.rotationIntervalDays;
        patch.nextRotationAt = nextRotationAt(ctx.clock.now(), input.rotationIntervalDays);
      }
      const updated = await repo.update(record.id, patch);
      if (!updated) throw new NotFoundError("KMS key not found");
      return { key: toKmsKey(updated) };
    },
  }),

  rotateKey: defineOperation({
    name: "rotateKey",
    summary:
      "Rotate a KMS key: new material becomes the primary version. Older versions stay, so earlier ciphertexts still decrypt " +
      "and earlier signatures and MACs still verify; new ones use the new version.",
    audience: "principal",
    input: keyRefInput,
    output: kmsKeyOutput,
    use: keyScope("edit"),
    async run(ctx, _actor, _input, { record, project }) {
      refuseDisabled(record);
      const rotated = await rotateKey(ctx, record, project.kmsSecretManagerKeyId);
      if (!rotated) throw new NotFoundError("KMS key not found");
      return { key: toKmsKey(rotated) };
    },
  }),

  deleteKey: defineOperation({
    name: "deleteKey",
    summary: "Delete a KMS key and every version of its material: what it encrypted can no longer be decrypted",
    audience: "principal",
    input: keyRefInput,
    output: kmsKeyOutput,
    use: keyScope("delete"),
    async run(ctx, _actor, _input, { record }) {
      await ctx.repo(cmekRepository).remove(record.id);
      return { key: toKmsKey(record) };
    },
  }),
};
