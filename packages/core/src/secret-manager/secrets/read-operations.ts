import { actorPrincipal } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ProjectCipher } from "../cipher.js";
import { environmentRepository } from "../environments/repository.js";
import { folderSubtree, requireFolder } from "../folders/tree.js";
import { importRepository } from "../imports/repository.js";
import { importedSecrets, importSource } from "../imports/resolve.js";
import { secretScope } from "../scope.js";
import type { SecretRow, TagRow } from "../tables.js";
import { tagRepository } from "../tags/repository.js";
import { decodeSecret, rowOfVersion, type FolderRef, type SecretType } from "./model.js";
import { expandReferences } from "./references.js";
import { secretRepository } from "./repository.js";
import { getSecretInput, listSecretsInput, secretListSchema, singleSecretSchema } from "./schemas.js";
import { sortSecrets } from "./view.js";
import { present, presentRow } from "./visibility.js";

export const readOperations = {
  list: defineOperation({
    name: "list",
    summary:
      "List the secrets of a folder (or its whole subtree), and those it imports; secrets the caller may not describe are left out. " +
      "Over HTTP the answer carries an ETag header that changes exactly when its content does.",
    audience: "principal",
    input: listSecretsInput,
    output: secretListSchema,
    use: secretScope,
    async run(ctx, actor, input, { access, cipher, project, env }) {
      const folders = input.recursive ? await folderSubtree(ctx, env, input.secretPath) : [await requireFolder(ctx, env, input.secretPath)];
      const principalId = actorPrincipal(actor)?.id;
      const tags = await ctx.repo(tagRepository).ofProject(project.id);
      const view = { access, cipher, projectId: project.id, environment: env.slug, tags, viewValue: input.viewSecretValue };
      const folderById = new Map(folders.map((f) => [f.id, f]));
      const rows = await ctx.repo(secretRepository).visible([...folderById.keys()], principalId);
      let secrets = rows.flatMap((row) => presentRow(view, row, folderById.get(row.folderId)!) ?? []);
      if (input.tagSlugs?.length) {
        const wanted = new Set(input.tagSlugs);
        secrets = secrets.filter((s) => s.tags.some((t) => wanted.has(t.slug)));
      }
      const withImports = input.includeImports ?? input.include_imports ?? false;
      const imports = withImports ? await importedSecrets(ctx, view, folders, principalId) : [];
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
      const folder = await requireFolder(ctx, env, input.secretPath);
      const lookup = { cipher, name: input.secretName, type: input.type, principalId: actorPrincipal(actor)?.id };
      let found: { row: SecretRow; folder: FolderRef; environment: string } | undefined;
      const row = await findByName(ctx, folder, lookup);
      if (row) found = { row, folder, environment: env.slug };
      else if (input.includeImports ?? input.include_imports) found = await findInImports(ctx, project.id, folder, lookup);
      if (!found) throw new NotFoundError(`Secret '${input.secretName}' not found`);

      let shown = found.row;
      if (input.version !== undefined && input.version !== shown.version) {
        const version = await ctx.repo(secretRepository).version(shown.id, input.version);
        if (!version) throw new NotFoundError(`Secret '${input.secretName}' has no version ${input.version}`);
        shown = rowOfVersion(version, shown);
      }
      const secret = decodeSecret(cipher, shown, found.folder);
      const expand = input.expandSecretReferences && secret.value.includes("${");
      // Most secrets carry no tag and no reference: then the project's tags need not be read.
      const tags = secret.tagIds.length || expand ? await ctx.repo(tagRepository).ofProject(project.id) : new Map<string, TagRow>();
      const view = { access, cipher, projectId: project.id, environment: found.environment, tags, viewValue: input.viewSecretValue };
      const shownSecret = present(view, secret);
      if (!shownSecret) throw new PermissionDeniedError(`You are not allowed to describeSecret secret '${input.secretName}'`);
      if (expand) await expandReferences({ ...view, ctx, principalId: lookup.principalId }, [shownSecret]);
      return { secret: shownSecret };
    },
  }),
};

interface NameLookup {
  cipher: ProjectCipher;
  name: string;
  type: SecretType | undefined;
  principalId: string | undefined;
}

async function findByName(ctx: Context, folder: FolderRef, lookup: NameLookup): Promise<SecretRow | undefined> {
  const secrets = ctx.repo(secretRepository);
  const hash = lookup.cipher.blindIndex(lookup.name);
  if (lookup.type === undefined) return (await secrets.visible([folder.id], lookup.principalId, [hash]))[0];
  if (lookup.type === "personal" && !lookup.principalId) return undefined;
  const kind = { type: lookup.type, ownerId: lookup.type === "personal" ? (lookup.principalId as string) : "" };
  return (await secrets.ofKind(folder.id, [hash], kind))[0];
}

/** The first import of `folder` (by position) whose source holds the name. */
async function findInImports(ctx: Context, projectId: string, folder: FolderRef, lookup: NameLookup) {
  const entries = await ctx.repo(importRepository).ofFolders([folder]);
  const envs = entries.length ? await ctx.repo(environmentRepository).liveOf(projectId) : new Map();
  for (const entry of entries) {
    const source = await importSource(ctx, entry, envs);
    const row = source && (await findByName(ctx, source.folder, lookup));
    if (source && row) return { row, folder: source.folder, environment: source.env.slug };
  }
  return undefined;
}
