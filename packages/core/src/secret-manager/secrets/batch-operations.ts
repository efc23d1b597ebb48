import { defineOperation } from "../../kernel/operation.js";
import { secretScope } from "../scope.js";
import { createSecrets, newSecretFrom } from "./create.js";
import { deleteSecrets } from "./delete.js";
import type { PlainSecret } from "./model.js";
import { changesOf, createSecretsInput, deleteSecretsInput, secretsSchema, updateSecretsInput } from "./schemas.js";
import { updateSecrets, type WrittenSecret } from "./update.js";
import { presentWritten } from "./visibility.js";
import { mapPaced } from "../../kernel/pace.js";
import { REHEARSAL_MIN_ITEMS, withSecretWrite, type WriteOptions, type WriteScope } from "./write-scope.js";

async function shown(w: WriteScope, secrets: readonly (PlainSecret | WrittenSecret | undefined)[]) {
  const present = await mapPaced(secrets, w.pace, (s) => (s === undefined ? undefined : "secret" in s ? presentWritten(w.view, s.secret, s.before) : presentWritten(w.view, s)));
  return { secrets: present.filter((s) => s !== undefined) };
}

/** Big batches are prepared outside their transaction (write-scope.ts). */
const batchOf = (input: { secrets: readonly unknown[] }): WriteOptions => ({ rehearse: input.secrets.length >= REHEARSAL_MIN_ITEMS });

/** Batch writes: one transaction each, every check before the first write, events after the commit. */
export const batchOperations = {
  createMany: defineOperation({
    name: "createMany",
    summary: "Create several secrets at once; any existing name → 400 and nothing is created",
    audience: "principal",
    input: createSecretsInput,
    output: secretsSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const items = input.secrets.map((item) =>
          newSecretFrom({ secretPath: item.secretPath ?? input.secretPath, key: item.secretKey, type: item.type }, changesOf(item)),
        );
        return shown(w, await createSecrets(w, items));
      }, batchOf(input)),
  }),

  updateMany: defineOperation({
    name: "updateMany",
    summary:
      "Update several secrets at once, grouped by path. `mode` decides about missing secrets: failOnNotFound (404 naming " +
      "every missing key, nothing changes), ignore (skipped), upsert (created after a create-permission check).",
    audience: "principal",
    input: updateSecretsInput,
    output: secretsSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const items = input.secrets.map((item) => ({
          secretPath: item.secretPath ?? input.secretPath,
          key: item.secretKey,
          type: "shared" as const,
          changes: changesOf(item),
        }));
        return shown(w, await updateSecrets(w, items, input.mode));
      }, batchOf(input)),
  }),

  deleteMany: defineOperation({
    name: "deleteMany",
    summary: "Delete several secrets at once; a missing key → 404 and nothing is deleted",
    audience: "principal",
    input: deleteSecretsInput,
    output: secretsSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const items = input.secrets.map((item) => ({ secretPath: item.secretPath ?? input.secretPath, key: item.secretKey, type: item.type }));
        return shown(w, await deleteSecrets(w, items));
      }, batchOf(input)),
  }),
};
