import { recordScope } from "../../access/scope.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation, type Middleware } from "../../kernel/operation.js";
import { projectCipher } from "../cipher.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import type { SecretScope } from "../scope.js";
import type { SecretRow } from "../tables.js";
import { tagRepository } from "../tags/repository.js";
import { decodeSecret, rowOfVersion, type FolderRef, type PlainSecret } from "./model.js";
import { secretRepository } from "./repository.js";
import { listSecretVersionsInput, rollbackSecretInput, secretVersionsSchema, singleSecretSchema } from "./schemas.js";
import { updateSecrets } from "./update.js";
import { present, presentWritten, type ReadView } from "./visibility.js";
import { withSecretWrite } from "./write-scope.js";

/**
 * A secret's history by the secret's id (Infisical's paths): its versions, and a rollback that
 * brings an earlier version's value, comment and metadata back as a new version (DESIGN.md §11;
 * the name and tags stay). History is the secret: a version is shown only to who may read the
 * secret as it is now and as it was then.
 */

export interface SecretRecordScope extends SecretScope {
  readonly row: SecretRow;
  readonly folder: FolderRef;
}

const secretRecord = recordScope<{ secretId: string }, SecretRow>({ what: "Secret", load: (ctx, input) => ctx.repo(secretRepository).get(input.secretId) });

/** A secret by id with its live environment, folder and the project's data key; someone else's personal override is 404. */
const secretRecordScope: Middleware<{ secretId: string }, SecretRecordScope> = async (ctx, actor, input) => {
  const { access, project, record: row } = await secretRecord(ctx, actor, input);
  access.requireMembership();
  const notFound = () => new NotFoundError("Secret not found");
  if (row.type === "personal" && row.ownerId !== actorPrincipal(actor)?.id) throw notFound();
  const env = await ctx.repo(environmentRepository).liveById(project.id, row.envId);
  const path = env && (await ctx.repo(folderRepository).pathOf(env.id, row.folderId));
  if (!env || path === undefined) throw notFound();
  return { access, project, env, cipher: await projectCipher(ctx, project), row, folder: { id: row.folderId, path } };
};

export const versionOperations = {
  listVersions: defineOperation({
    name: "listVersions",
    summary:
      "List a secret's versions, newest first, the current one included. Versions the caller may not describe as they were " +
      "are left out; a value shows only to who may read the secret as it is now and as it was then.",
    audience: "principal",
    input: listSecretVersionsInput,
    output: secretVersionsSchema,
    use: secretRecordScope,
    async run(ctx, _actor, input, { access, cipher, project, env, row, folder }) {
      const current = decodeSecret(cipher, row, folder);
      const view: ReadView = { access, cipher, projectId: project.id, environment: env.slug, tags: await ctx.repo(tagRepository).ofProject(project.id), viewValue: true };
      // Named by id: a refusal must not tell the caller the name it may not describe (issue 15, principle 11).
      if (!present(view, current)) throw new PermissionDeniedError("You are not allowed to describeSecret this secret");
      // The current state is item 0; the stored earlier states follow it.
      const withCurrent = input.offset === 0;
      const earlier = await ctx.repo(secretRepository).versions(row.id, {
        offset: Math.max(0, input.offset - 1),
        limit: input.limit - (withCurrent ? 1 : 0),
      });
      const states: PlainSecret[] = [...(withCurrent ? [current] : []), ...earlier.map((v) => decodeSecret(cipher, rowOfVersion(v, row), folder))];
      return { secretVersions: states.flatMap((state) => present(view, state, state === current ? [] : [current]) ?? []) };
    },
  }),

  rollback: defineOperation({
    name: "rollback",
    summary:
      "Roll a secret back to an earlier version: its value, comment and metadata come back as a new version; the name and tags stay. " +
      "Takes edit on the secret, and reading the value of the secret as it is and as it was at that version.",
    audience: "principal",
    input: rollbackSecretInput,
    output: singleSecretSchema,
    use: secretRecordScope,
    run: (ctx, actor, input, scope) =>
      withSecretWrite(ctx, actor, scope, async (w) => {
        const current = decodeSecret(w.cipher, scope.row, scope.folder);
        // Named by id: answers name the secret only to a caller that may describe it (issue 15, principle 11),
        // and whether a version exists is told only to one that may read the value as it is now.
        const now = present(w.view, current);
        const named = now ? `secret '${current.key}'` : "this secret";
        if (!now || now.secretValueHidden) throw new PermissionDeniedError(`You are not allowed to readValue ${named}`);
        let old = current;
        if (input.version !== current.version) {
          const stored = await w.secrets.version(scope.row.id, input.version);
          if (!stored) throw new NotFoundError(`Secret '${current.key}' has no version ${input.version}`);
          old = decodeSecret(w.cipher, rowOfVersion(stored, scope.row), scope.folder);
        }
        // Bringing a value back must not hand the caller (or the secret's readers) a value it could never read.
        const readable = present(w.view, old, [current]);
        if (!readable || readable.secretValueHidden) throw new PermissionDeniedError(`You are not allowed to readValue ${named} at version ${input.version}`);
        const changes = { value: old.value, comment: old.comment, metadata: old.metadata };
        const [written] = await updateSecrets(w, [{ secretPath: scope.folder.path, key: current.key, type: current.type, changes }], "failOnNotFound");
        return { secret: presentWritten(w.view, written!.secret, written!.before) };
      }),
  }),
};
