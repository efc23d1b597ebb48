import { z } from "zod";
import { defineOperation } from "../../kernel/operation.js";
import { secretScope } from "../scope.js";
import { createSecrets, newSecretFrom } from "./create.js";
import { deleteSecrets } from "./delete.js";
import { retag } from "./retag.js";
import {
  changesOf,
  createSecretInput,
  deleteSecretInput,
  encryptedSecretSchema,
  secretTagsInput,
  singleSecretSchema,
  updateSecretInput,
} from "./schemas.js";
import { updateSecrets } from "./update.js";
import { presentWritten } from "./visibility.js";
import { withSecretWrite } from "./write-scope.js";

const encryptedAnswer = z.object({ secret: encryptedSecretSchema });

/** Single-secret writes: a batch of one through the same engine as the batch endpoints. */
export const writeOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a secret (version 1); a personal one overrides the shared secret of its name for the caller only",
    audience: "principal",
    input: createSecretInput,
    output: singleSecretSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const where = { secretPath: input.secretPath, key: input.secretName, type: input.type };
        const [secret] = await createSecrets(w, [newSecretFrom(where, changesOf(input))]);
        return { secret: presentWritten(w.view, secret) };
      }),
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a secret: only the fields sent change; each change is a new version",
    audience: "principal",
    input: updateSecretInput,
    output: singleSecretSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const item = { secretPath: input.secretPath, key: input.secretName, type: input.type, changes: changesOf(input) };
        const [written] = await updateSecrets(w, [item], "failOnNotFound");
        return { secret: presentWritten(w.view, written!.secret, written!.before) };
      }),
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a secret (its versions are kept)",
    audience: "principal",
    input: deleteSecretInput,
    output: singleSecretSchema,
    use: secretScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const [secret] = await deleteSecrets(w, [{ secretPath: input.secretPath, key: input.secretName, type: input.type }]);
        return { secret: presentWritten(w.view, secret) };
      }),
  }),

  attachTags: defineOperation({
    name: "attachTags",
    summary: "Attach tags to a secret by slug: an unknown slug → 404, one already attached → 400",
    audience: "principal",
    input: secretTagsInput,
    output: encryptedAnswer,
    use: secretScope,
    run: (ctx, actor, input, scope) => withSecretWrite(ctx, actor, scope, (w) => retag(w, input, true)),
  }),

  detachTags: defineOperation({
    name: "detachTags",
    summary: "Detach tags from a secret by slug: an unknown slug → 404, one not attached → 400",
    audience: "principal",
    input: secretTagsInput,
    output: encryptedAnswer,
    use: secretScope,
    run: (ctx, actor, input, scope) => withSecretWrite(ctx, actor, scope, (w) => retag(w, input, false)),
  }),
};
