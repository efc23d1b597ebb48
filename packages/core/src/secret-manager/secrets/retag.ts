import type { z } from "zod";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { tagsBySlugs } from "../tags/lookup.js";
import type { secretTagsInput } from "./schemas.js";
import { updateSecrets } from "./update.js";
import { describedOnly, requireCouldDescribe } from "./visibility.js";
import { toEncryptedSecretObject } from "./view.js";
import { ownerFor, resolveFolders, type WriteScope } from "./write-scope.js";

/**
 * Attaching or detaching tags is an edit of the secret's tag set through the ordinary update
 * engine (new version, `secret:update`); the answer is SPEC.md's ciphertext view, without what
 * the caller may not describe (issue 15, principle 11).
 */
export async function retag(w: WriteScope, input: z.output<typeof secretTagsInput>, attach: boolean) {
  requireCouldDescribe(w.access, w.env.slug, input.secretPath, input.secretName);
  const wanted = tagsBySlugs(w.tags, input.tagSlugs);
  const folder = (await resolveFolders(w, [input.secretPath])).get(input.secretPath)!;
  const kind = { type: input.type, ownerId: ownerFor(w, input.type) };
  // Locked: the tag set written is computed from this read.
  const [row] = await w.secrets.ofKind(folder.id, w.cipher.storedIndexes([input.secretName]), kind, { forUpdate: true });
  if (!row) throw new NotFoundError(`Secret '${input.secretName}' not found`);
  const wrong = wanted.filter((t) => row.tagIds.includes(t.id) === attach).map((t) => t.slug);
  if (wrong.length) throw new BadRequestError(`Tag${wrong.length > 1 ? "s" : ""} ${attach ? "already attached" : "not attached"}: ${wrong.join(", ")}`);
  const wantedIds = new Set(wanted.map((t) => t.id));
  const tagIds = attach ? [...row.tagIds, ...wantedIds] : row.tagIds.filter((id) => !wantedIds.has(id));
  const [written] = await updateSecrets(w, [{ secretPath: input.secretPath, key: input.secretName, type: input.type, changes: { tagIds } }], "failOnNotFound");
  // Like every answer to a write: nothing the caller may not describe of the secret, before or after.
  const shown = describedOnly(w.view, written!.secret, written!.before);
  return { secret: toEncryptedSecretObject(shown, w.cipher, { projectId: w.project.id, environment: w.env.slug, tags: w.tags }) };
}
