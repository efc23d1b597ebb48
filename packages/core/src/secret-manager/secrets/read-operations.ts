import type { ProjectAccess } from "../../access/project-access.js";
import { actorPrincipal } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { mapPaced, pacer } from "../../kernel/pace.js";
import type { ProjectCipher } from "../cipher.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import { folderSubtree, requireFolder } from "../folders/tree.js";
import { importRepository } from "../imports/repository.js";
import { importChain, importedSecrets } from "../imports/resolve.js";
import { secretScope } from "../scope.js";
import { listRevision, secretStampRepository } from "../stamps.js";
import type { SecretRow, TagRow } from "../tables.js";
import { tagRepository } from "../tags/repository.js";
import { decodeSecret, rowOfVersion, type FolderRef, type SecretType } from "./model.js";
import { expandReferences } from "./references.js";
import { secretRepository } from "./repository.js";
import { getSecretInput, listSecretsInput, secretListSchema, singleSecretSchema } from "./schemas.js";
import { sortSecrets } from "./view.js";
import { present, presentRow, requireCouldDescribe, requireCouldDescribeBelow } from "./visibility.js";

export const readOperations = {
  list: defineOperation({
    name: "list",
    summary:
      "List the secrets of a folder (or its whole subtree), and those it imports; secrets the caller may not describe are left out. " +
      "Over HTTP the answer carries an ETag header, read from stored state, that changes whenever its content can have; a matching If-None-Match is answered 304 without reading the secrets.",
    audience: "principal",
    input: listSecretsInput,
    output: secretListSchema,
    use: secretScope,
    async revision(ctx, actor, input, { access, project, env }) {
      // The refusals a full answer would give come first: a revalidation never skips them.
      refuseListing(access, env.slug, input);
      await requireFolder(ctx, env, input.secretPath);
      const stamp = await ctx.repo(secretStampRepository).of(project.id);
      return listRevision(stamp, env, access, actorPrincipal(actor)?.id, input);
    },
    async run(ctx, actor, input, { access, cipher, project, env }) {
      refuseListing(access, env.slug, input);
      const folders = input.recursive ? await folderSubtree(ctx, env, input.secretPath) : [await requireFolder(ctx, env, input.secretPath)];
      const principalId = actorPrincipal(actor)?.id;
      const tags = await ctx.repo(tagRepository).ofProject(project.id);
      const view = { access, cipher, projectId: project.id, environment: env.slug, tags, viewValue: input.viewSecretValue };
      const folderById = new Map(folders.map((f) => [f.id, f]));
      const overrides = input.includePersonalOverrides ?? input.include_personal_overrides ?? false;
      const secretRows = ctx.repo(secretRepository);
      const rows = overrides ? await secretRows.visible([...folderById.keys()], principalId, undefined, cipher) : await secretRows.withOwn([...folderById.keys()], principalId);
      // Opening thousands of secrets takes a while: paced, so other requests are served meanwhile.
      const shown = await mapPaced(rows, pacer(ctx.inTransaction), (row) => presentRow(view, row, folderById.get(row.folderId)!));
      let secrets = shown.filter((s) => s !== undefined);
      if (input.tagSlugs?.length) {
        const wanted = new Set(input.tagSlugs);
        secrets = secrets.filter((s) => s.tags.some((t) => wanted.has(t.slug)));
      }
      const withImports = input.includeImports ?? input.include_imports ?? false;
      const imports = withImports ? await importedSecrets(ctx, view, folders, overrides ? principalId : undefined) : [];
      if (input.expandSecretReferences) {
        await expandReferences({ ...view, ctx, principalId }, [...secrets, ...imports.flatMap((i) => i.secrets)]);
      }
      return { secrets: sortSecrets(secrets), imports };
    },
  }),

  get: defineOperation({
    name: "get",
    summary:
      "Get one secret by name; without `type`, the caller's personal override wins over the shared secret. " +
      "`version` reads an earlier version; `includeImports` also looks in the folder's imports.",
    audience: "principal",
    input: getSecretInput,
    output: singleSecretSchema,
    use: secretScope,
    async run(ctx, actor, input, { access, cipher, project, env }) {
      // Whether the caller could describe a secret of this name here: if not, the answer is 403
      // whether the folder or the secret exists or not (DESIGN.md §11).
      const describableHere = access.couldAllow("describeSecret", "secrets", { environment: env.slug, secretPath: input.secretPath, secretName: input.secretName }, ["secretTags"]);
      const refused = () => new PermissionDeniedError(`You are not allowed to describeSecret secret '${input.secretName}'`);
      const missing = () => (describableHere ? new NotFoundError(`Secret '${input.secretName}' not found`) : refused());
      const lookup = { cipher, name: input.secretName, type: input.type, principalId: actorPrincipal(actor)?.id };
      let found: { row: SecretRow; folder: FolderRef; environment: string } | undefined;
      const folder = await ctx.repo(folderRepository).find(env.id, input.secretPath);
      if (!folder && describableHere) throw new NotFoundError(`Folder '${input.secretPath}' not found in environment '${env.slug}'`);
      const row = folder && (await findByName(ctx, folder, lookup));
      if (folder && row) found = { row, folder, environment: env.slug };
      else if (folder && (input.includeImports ?? input.include_imports)) found = await findInImports(ctx, access, project.id, folder, lookup);
      if (!found) throw missing();

      const current = decodeSecret(cipher, found.row, found.folder);
      const earlier = input.version !== undefined && input.version !== current.version ? input.version : undefined;
      // Most secrets carry no tag and no reference: then the project's tags need not be read.
      const needTags = current.tagIds.length > 0 || earlier !== undefined || (input.expandSecretReferences && current.value.includes("${"));
      const tags = needTags ? await ctx.repo(tagRepository).ofProject(project.id) : new Map<string, TagRow>();
      const view = { access, cipher, projectId: project.id, environment: found.environment, tags, viewValue: input.viewSecretValue };
      // The current secret as shown: the answer itself unless an earlier version was asked for.
      const presented = present(view, current);
      if (!presented) throw refused();
      let secret = current;
      if (earlier !== undefined) {
        const version = await ctx.repo(secretRepository).version(found.row.id, earlier);
        if (!version) throw new NotFoundError(`Secret '${input.secretName}' has no version ${earlier}`);
        secret = decodeSecret(cipher, rowOfVersion(version, found.row), found.folder);
      }
      // An earlier version is shown only to who may read the secret as it is now and as it was then.
      const shownSecret = secret === current ? presented : present(view, secret, [current]);
      if (!shownSecret) throw refused();
      const expand = input.expandSecretReferences && secret.value.includes("${");
      if (expand) await expandReferences({ ...view, ctx, principalId: lookup.principalId }, [shownSecret]);
      return { secret: shownSecret };
    },
  }),
};

/** Refused before the folder is looked up when no secret there (or below it) could be described (DESIGN.md §11). */
function refuseListing(access: ProjectAccess, environment: string, input: { recursive?: boolean; secretPath: string }): void {
  if (input.recursive) requireCouldDescribeBelow(access, environment, input.secretPath);
  else requireCouldDescribe(access, environment, input.secretPath, undefined);
}

interface NameLookup {
  cipher: ProjectCipher;
  name: string;
  type: SecretType | undefined;
  principalId: string | undefined;
}

async function findByName(ctx: Context, folder: FolderRef, lookup: NameLookup): Promise<SecretRow | undefined> {
  const secrets = ctx.repo(secretRepository);
  const hashes = lookup.cipher.storedIndexes([lookup.name]);
  if (lookup.type === undefined) return (await secrets.visible([folder.id], lookup.principalId, hashes, lookup.cipher))[0];
  if (lookup.type === "personal" && !lookup.principalId) return undefined;
  const kind = { type: lookup.type, ownerId: lookup.type === "personal" ? (lookup.principalId as string) : "" };
  return (await secrets.ofKind(folder.id, hashes, kind))[0];
}

/**
 * The first folder, among what `folder` imports (by position, each import's chain of imports
 * of imports nearest first), that holds the name: the one a list with imports shows it from.
 * Sources where the caller could not describe a secret of that name are passed over unread, so
 * whether they hold it never shows in the answer.
 */
async function findInImports(ctx: Context, access: ProjectAccess, projectId: string, folder: FolderRef, lookup: NameLookup) {
  const entries = await ctx.repo(importRepository).ofFolders([folder]);
  const envs = entries.length ? await ctx.repo(environmentRepository).liveOf(projectId) : new Map();
  for (const entry of entries) {
    for (const source of await importChain(ctx, entry, envs, new Set([folder.id]))) {
      const describable = access.couldAllow("describeSecret", "secrets", { environment: source.env.slug, secretPath: source.folder.path, secretName: lookup.name }, ["secretTags"]);
      const row = describable && (await findByName(ctx, source.folder, lookup));
      if (row) return { row, folder: source.folder, environment: source.env.slug };
    }
  }
  return undefined;
}
