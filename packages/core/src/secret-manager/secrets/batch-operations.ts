import { defineOperation } from "../../kernel/operation.js";
import { secretScope } from "../scope.js";
import { createSecrets, newSecretFrom } from "./create.js";
import { deleteSecrets } from "./delete.js";
import type { PlainSecret } from "./model.js";
import { changesOf, createSecretsInput, deleteSecretsInput, secretsSchema, updateSecretsInput } from "./schemas.js";
import { updateSecrets, type WrittenSecret } from "./update.js";
import { presentWritten } from "./visibility.js";
import { withSecretWrite, type WriteScope } from "./write-scope.js";

const shown = (w: WriteScope, secrets: readonly (PlainSecret | WrittenSecret | undefined)[]) => ({
  secrets: secrets.flatMap((s) => (s === undefined ? [] : "secret" in s ? [presentWritten(w.view, s.secret, s.before)] : [presentWritten(w.view, s)])),
});

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
      }),
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
      }),
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
      }),
  }),
};
