import { z } from "zod";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { requireEnvironment, type EnvironmentRow } from "../environments/lookup.js";
import { deleteServices } from "../../agent-vault/services/repository.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { isoDateTime } from "../../kernel/schemas.js";
import { writeSecrets } from "../secrets/change-log.js";
import { decodeSecret } from "../secrets/model.js";
import { environmentSlug, projectScoped, queryBoolean } from "../input-fields.js";
import { FOLDER_NAME_PATTERN, joinPath, parentPath, ROOT_PATH, secretPathSchema } from "../paths.js";
import { openProject, type ProjectScope } from "../secrets/scope.js";
import type { AppStorage as Storage } from "../../schema.js";
import { folderSubtree, requireFolder, type FolderRow } from "./tree.js";
import type { ProjectRef } from "../../access/project-access.js";

const folderSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  parentId: z.string(),
  envId: z.string(),
  path: z.string(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

const toFolder = (f: FolderRow) => ({
  id: f.id,
  name: f.name,
  description: f.description,
  parentId: f.parentId,
  envId: f.envId,
  path: f.path,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

const folderName = z.string().trim().min(1).max(64).regex(FOLDER_NAME_PATTERN, "Folder names hold only letters, digits, '-' and '_'");

async function openFolders(ctx: Context, actor: Actor, ref: ProjectRef, environment: string): Promise<ProjectScope & { env: EnvironmentRow }> {
  const scope = await openProject(ctx, actor, ref);
  return { ...scope, env: await requireEnvironment(ctx.storage, scope.project.id, environment) };
}

/**
 * Creates `path` and any missing folder above it, each only if `mayCreateIn` its parent path;
 * 400 when `path` itself exists.
 */
async function createPath(
  tx: Storage,
  env: EnvironmentRow,
  path: string,
  description: string | null,
  now: string,
  mayCreateIn: (parentPath: string) => void,
): Promise<FolderRow> {
  const existing = new Map((await tx.tables.secretFolders.find({ envId: env.id })).map((f) => [f.path, f]));
  if (existing.has(path)) throw new BadRequestError(`Folder '${path}' already exists`);
  const created: FolderRow[] = [];
  let parentId = env.id;
  for (let at = ROOT_PATH, rest = path.split("/").filter(Boolean); rest.length; rest = rest.slice(1)) {
    at = joinPath(at, rest[0]);
    const found = existing.get(at);
    if (found) {
      parentId = found.id;
      continue;
    }
    mayCreateIn(parentPath(at));
    const row: FolderRow = {
      id: newId(),
      projectId: env.projectId,
      envId: env.id,
      parentId,
      name: rest[0],
      path: at,
      description: at === path ? description : null,
      createdAt: now,
      updatedAt: now,
    };
    created.push(row);
    parentId = row.id;
  }
  await tx.tables.secretFolders.insertMany(created);
  return created[created.length - 1];
}

export const folderOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a folder (and any missing folder above it) in an environment",
    audience: "principal",
    input: projectScoped({
      environment: environmentSlug,
      name: folderName,
      /** The parent folder's path. */
      path: secretPathSchema.default(ROOT_PATH),
      /** Infisical's former name for `path`. */
      directory: secretPathSchema.optional(),
      description: z.string().max(1024).nullable().optional(),
    }),
    output: z.object({ folder: folderSchema }),
    async run(ctx, actor, input) {
      const { access, env } = await openFolders(ctx, actor, input.project, input.environment);
      const parent = input.directory ?? input.path;
      const now = ctx.clock.now().toISOString();
      const mayCreateIn = (secretPath: string) => access.require("create", "secret-folders", { environment: env.slug, secretPath });
      const folder = await ctx.storage.transaction((tx) =>
        createPath(tx, env, joinPath(parent, input.name), input.description ?? null, now, mayCreateIn),
      );
      return { folder: toFolder(folder) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the folders directly inside a path, or every folder below it with `recursive`",
    audience: "principal",
    input: projectScoped({
      environment: environmentSlug,
      path: secretPathSchema.default(ROOT_PATH),
      directory: secretPathSchema.optional(),
      recursive: queryBoolean.default(false),
    }),
    output: z.object({ folders: z.array(folderSchema) }),
    async run(ctx, actor, input) {
      const { access, env } = await openFolders(ctx, actor, input.project, input.environment);
      const base = input.directory ?? input.path;
      access.require("read", "secret-folders", { environment: env.slug, secretPath: base });
      const [parent, ...below] = await folderSubtree(ctx.storage, env, base);
      const rows = below.length ? await ctx.storage.tables.secretFolders.find({ id: { in: below.map((f) => f.id) } }) : [];
      const shown = input.recursive ? rows : rows.filter((f) => f.parentId === parent.id);
      return { folders: shown.sort((a, b) => (a.path < b.path ? -1 : 1)).map(toFolder) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary:
      "Delete a folder with everything in it (sub-folders, secrets, imports). Name it by id or name inside `path`, " +
      "or give its own `path` without `folderIdOrName`.",
    audience: "principal",
    input: projectScoped({
      environment: environmentSlug,
      path: secretPathSchema.default(ROOT_PATH),
      directory: secretPathSchema.optional(),
      folderIdOrName: z.string().min(1).max(255).optional(),
    }),
    output: z.object({ folder: folderSchema }),
    async run(ctx, actor, input) {
      const { access, project, cipher, env } = await openFolders(ctx, actor, input.project, input.environment);
      const base = input.directory ?? input.path;
      const target = await locateFolder(ctx.storage, env, base, input.folderIdOrName);
      access.require("delete", "secret-folders", { environment: env.slug, secretPath: parentPath(target.path) });
      return writeSecrets(ctx, project, async (tx, log) => {
        const subtree = await folderSubtree(tx, env, target.path);
        const ids = subtree.map((f) => f.id);
        const pathOf = new Map(subtree.map((f) => [f.id, f.path]));
        const secrets = await tx.tables.secrets.find({ folderId: { in: ids } });
        for (const s of secrets) log.record("secret:delete", env, pathOf.get(s.folderId)!, decodeSecret(cipher, s, { id: s.folderId, path: pathOf.get(s.folderId)! }).key);
        await tx.tables.secrets.delete({ folderId: { in: ids } });
        await tx.tables.secretImports.delete({ folderId: { in: ids } });
        await tx.tables.secretFolders.delete({ id: { in: ids } });
        // proxied services live in folders: they go with them, out of their access bundles too
        await deleteServices(tx, await tx.tables.proxiedServices.find({ folderId: { in: ids } }), ctx.clock.now().toISOString());
        return { folder: toFolder(target) };
      });
    },
  }),
};

/** The folder a delete names: by id anywhere in the environment, by name inside `base`, or `base` itself. */
async function locateFolder(storage: Storage, env: EnvironmentRow, base: string, idOrName: string | undefined): Promise<FolderRow> {
  const folders = storage.tables.secretFolders;
  if (idOrName === undefined) {
    if (base === ROOT_PATH) throw new BadRequestError("The root folder cannot be deleted");
    await requireFolder(storage, env, base);
    return (await folders.findOne({ envId: env.id, path: base }))!;
  }
  const byId = await folders.findOne({ envId: env.id, id: idOrName });
  if (byId) return byId;
  const path = FOLDER_NAME_PATTERN.test(idOrName) ? joinPath(base, idOrName) : undefined;
  const byName = path && (await folders.findOne({ envId: env.id, path }));
  if (!byName) throw new NotFoundError(`Folder '${path ?? idOrName}' not found in environment '${env.slug}'`);
  return byName;
}
