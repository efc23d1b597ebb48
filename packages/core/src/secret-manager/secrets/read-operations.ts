import { actorPrincipal } from "../../kernel/actor.js";
import { NotFoundError, PermissionDeniedError } from "../../kernel/errors.js";
import { folderSubtree, requireFolder } from "../folders/tree.js";
import { defineOperation } from "../../kernel/operation.js";
import { importedSecrets, importSource, importsOf } from "../imports/resolve.js";
import { liveEnvironments } from "../environments/lookup.js";
import { projectTags } from "../tags/lookup.js";
import type { AppStorage as Storage } from "../../schema.js";
import type { ProjectCipher } from "../cipher.js";
import { getSecretInput, listSecretsInput } from "./inputs.js";
import { decodeSecret, rowOfVersion, type FolderRef, type SecretRow, type SecretType } from "./model.js";
import { expandReferences } from "./references.js";
import { rowsOfKind, visibleRows } from "./rows.js";
import { secretListSchema, singleSecretSchema } from "./schemas.js";
import { openEnvironment } from "./scope.js";
import { sortSecrets, type TagRow } from "./serialize.js";
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
    async run(ctx, actor, input) {
      const { access, cipher, project, env } = await openEnvironment(ctx, actor, input.project, input.environment);
      const storage = ctx.storage;
      const folders = input.recursive ? await folderSubtree(storage, env, input.secretPath) : [await requireFolder(storage, env, input.secretPath)];
      const principalId = actorPrincipal(actor)?.id;
      const view = { access, cipher, projectId: project.id, environment: env.slug, tags: await projectTags(storage, project.id), viewValue: input.viewSecretValue };
      const folderById = new Map(folders.map((f) => [f.id, f]));
      const rows = await visibleRows(storage, [...folderById.keys()], principalId);
      let secrets = rows.flatMap((row) => presentRow(view, row, folderById.get(row.folderId)!) ?? []);
      if (input.tagSlugs?.length) {
        const wanted = new Set(input.tagSlugs);
        secrets = secrets.filter((s) => s.tags.some((t) => wanted.has(t.slug)));
      }
      const withImports = input.includeImports ?? input.include_imports ?? false;
      const imports = withImports ? await importedSecrets(storage, view, folders, principalId) : [];
      if (input.expandSecretReferences) {
        await expandReferences({ ...view, storage, principalId }, [...secrets, ...imports.flatMap((i) => i.secrets)]);
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
    async run(ctx, actor, input) {
      const { access, cipher, project, env } = await openEnvironment(ctx, actor, input.project, input.environment);
      const storage = ctx.storage;
      const folder = await requireFolder(storage, env, input.secretPath);
      const lookup = { cipher, name: input.secretName, type: input.type, principalId: actorPrincipal(actor)?.id };
      let found: { row: SecretRow; folder: FolderRef; environment: string } | undefined;
      const row = await findByName(storage, folder, lookup);
      if (row) found = { row, folder, environment: env.slug };
      else if (input.includeImports ?? input.include_imports) found = await findInImports(storage, project.id, folder, lookup);
      if (!found) throw new NotFoundError(`Secret '${input.secretName}' not found`);

      let shown = found.row;
      if (input.version !== undefined && input.version !== shown.version) {
        const version = await storage.tables.secretVersions.findOne({ secretId: shown.id, version: input.version });
        if (!version) throw new NotFoundError(`Secret '${input.secretName}' has no version ${input.version}`);
        shown = rowOfVersion(version, shown);
      }
      const secret = decodeSecret(cipher, shown, found.folder);
      const expand = input.expandSecretReferences && secret.value.includes("${");
      // Most secrets carry no tag and no reference: then the project's tags need not be read.
      const tags = secret.tagIds.length || expand ? await projectTags(storage, project.id) : new Map<string, TagRow>();
      const view = { access, cipher, projectId: project.id, environment: found.environment, tags, viewValue: input.viewSecretValue };
      const shownSecret = present(view, secret);
      if (!shownSecret) throw new PermissionDeniedError(`You are not allowed to describeSecret secret '${input.secretName}'`);
      if (expand) await expandReferences({ ...view, storage, principalId: lookup.principalId }, [shownSecret]);
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

async function findByName(storage: Storage, folder: FolderRef, lookup: NameLookup): Promise<SecretRow | undefined> {
  const hash = lookup.cipher.blindIndex(lookup.name);
  if (lookup.type === undefined) return (await visibleRows(storage, [folder.id], lookup.principalId, [hash]))[0];
  if (lookup.type === "personal" && !lookup.principalId) return undefined;
  const kind = { type: lookup.type, ownerId: lookup.type === "personal" ? (lookup.principalId as string) : "" };
  return (await rowsOfKind(storage, folder.id, [hash], kind))[0];
}

/** The first import of `folder` (by position) whose source holds the name. */
async function findInImports(storage: Storage, projectId: string, folder: FolderRef, lookup: NameLookup) {
  const entries = await importsOf(storage, [folder]);
  const envs = entries.length ? await liveEnvironments(storage, projectId) : new Map();
  for (const entry of entries) {
    const source = await importSource(storage, entry, envs);
    const row = source && (await findByName(storage, source.folder, lookup));
    if (source && row) return { row, folder: source.folder, environment: source.env.slug };
  }
  return undefined;
}
