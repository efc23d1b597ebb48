import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { tagsBySlugs } from "../tags/lookup.js";
import { secretTagsInput } from "./inputs.js";
import { rowsOfKind } from "./rows.js";
import { encryptedSecretSchema } from "./schemas.js";
import { toEncryptedSecretObject } from "./serialize.js";
import { updateSecrets } from "./update.js";
import { ownerFor, resolveFolders, withSecretWrite, type WriteScope } from "./write-scope.js";

type TagsInput = z.output<typeof secretTagsInput>;

const encryptedAnswer = z.object({ secret: encryptedSecretSchema });

/**
 * Attaching or detaching tags is an edit of the secret's tag set through the ordinary update
 * engine (new version, `secret:update`); the answer is SPEC.md's ciphertext view.
 */
async function retag(w: WriteScope, input: TagsInput, attach: boolean) {
  const wanted = tagsBySlugs(w.tags, input.tagSlugs);
  const folder = (await resolveFolders(w, [input.secretPath])).get(input.secretPath)!;
  const kind = { type: input.type, ownerId: ownerFor(w, input.type) };
  const [row] = await rowsOfKind(w.tx, folder.id, [w.cipher.blindIndex(input.secretName)], kind);
  if (!row) throw new NotFoundError(`Secret '${input.secretName}' not found`);
  const wrong = wanted.filter((t) => row.tagIds.includes(t.id) === attach).map((t) => t.slug);
  if (wrong.length) throw new BadRequestError(`Tag${wrong.length > 1 ? "s" : ""} ${attach ? "already attached" : "not attached"}: ${wrong.join(", ")}`);
  const wantedIds = new Set(wanted.map((t) => t.id));
  const tagIds = attach ? [...row.tagIds, ...wantedIds] : row.tagIds.filter((id) => !wantedIds.has(id));
  const [secret] = await updateSecrets(w, [{ secretPath: input.secretPath, key: input.secretName, type: input.type, changes: { tagIds } }], "failOnNotFound");
  return { secret: toEncryptedSecretObject(secret!, w.cipher, { projectId: w.project.id, environment: w.env.slug, tags: w.tags }) };
}

export const tagOperations = {
  attachTags: defineOperation({
    name: "attachTags",
    summary: "Attach tags to a secret by slug: an unknown slug → 404, one already attached → 400",
    audience: "principal",
    input: secretTagsInput,
    output: encryptedAnswer,
    run: (ctx, actor, input) => withSecretWrite(ctx, actor, input.project, input.environment, (w) => retag(w, input, true)),
  }),

  detachTags: defineOperation({
    name: "detachTags",
    summary: "Detach tags from a secret by slug: an unknown slug → 404, one not attached → 400",
    audience: "principal",
    input: secretTagsInput,
    output: encryptedAnswer,
    run: (ctx, actor, input) => withSecretWrite(ctx, actor, input.project, input.environment, (w) => retag(w, input, false)),
  }),
};
