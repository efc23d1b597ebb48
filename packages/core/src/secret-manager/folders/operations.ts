import { z } from "zod";
import { recordScope } from "../../access/scope.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { environmentRepository } from "../environments/repository.js";
import { joinPath, parentPath } from "../paths.js";
import { memberEnvironmentScope, secretScope } from "../scope.js";
import { writeSecrets } from "../secrets/change-log.js";
import { decodeSecret } from "../secrets/model.js";
import { tagSlugsOf } from "../secrets/view.js";
import type { FolderRow, TagRow } from "../tables.js";
import { tagRepository } from "../tags/repository.js";
import { requireRemovable } from "../removal-check.js";
import { authorizeFolderMove } from "./move-authorization.js";
import { folderRepository } from "./repository.js";
import { createFolderInput, deleteFolderInput, folderDetailSchema, folderSchema, getFolderInput, listFoldersInput, updateFolderInput } from "./schemas.js";
import { createPath, folderSubtree, locateFolder } from "./tree.js";
import { toFolder, toFolderDetail } from "./view.js";

/** A folder by id, in a project the caller may see (404 otherwise, as for a folder that does not exist). */
const folderRecord = recordScope<{ id: string }, FolderRow>({ what: "Folder", load: (ctx, input) => ctx.repo(folderRepository).get(input.id) });

export const folderOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a folder (and any missing folder above it) in an environment",
    audience: "principal",
    input: createFolderInput,
    output: z.object({ folder: folderSchema }),
    use: memberEnvironmentScope,
    async run(ctx, _actor, input, { access, env }) {
      const parent = input.directory ?? input.path;
      const now = ctx.clock.now().toISOString();
      const mayCreateIn = (secretPath: string) => access.require("create", "secret-folders", { environment: env.slug, secretPath });
      const path = joinPath(parent, input.name);
      // Checked before looking: whether the folder exists is news only to who may create it.
      mayCreateIn(parentPath(path));
      const folder = await ctx.withTransaction((tx) => createPath(tx, env, path, input.description ?? null, now, mayCreateIn));
      return { folder: toFolder(folder) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the folders directly inside a path, or every folder below it with `recursive`",
    audience: "principal",
    input: listFoldersInput,
    output: z.object({ folders: z.array(folderSchema) }),
    use: memberEnvironmentScope,
    async run(ctx, _actor, input, { access, env }) {
      const base = input.directory ?? input.path;
      access.require("read", "secret-folders", { environment: env.slug, secretPath: base });
      const [parent, ...below] = await folderSubtree(ctx, env, base);
      const rows = await ctx.repo(folderRepository).byIds(below.map((f) => f.id));
      const shown = input.recursive ? rows : rows.filter((f) => f.parentId === parent.id);
      return { folders: shown.sort((a, b) => (a.path < b.path ? -1 : 1)).map(toFolder) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a folder by id, with its environment and path",
    audience: "principal",
    input: getFolderInput,
    output: z.object({ folder: folderDetailSchema }),
    use: folderRecord,
    async run(ctx, _actor, _input, { access, record: folder }) {
      // A folder of a deleted environment is gone with it.
      const env = await ctx.repo(environmentRepository).liveById(folder.projectId, folder.envId);
      if (!env) throw new NotFoundError("Folder not found");
      access.require("read", "secret-folders", { environment: env.slug, secretPath: parentPath(folder.path) });
      return { folder: toFolderDetail(folder, env) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary:
      "Rename a folder in place (everything below it, and imports that show it, follow) or change its description. " +
      "A rename is allowed only when the caller may edit every folder, secret, import and proxied service it moves, " +
      "at the old path and at the new one. Subscribers see each moved secret leave its old path (`secret:delete`) and " +
      "arrive at its new one (`secret:create`).",
    audience: "principal",
    input: updateFolderInput,
    output: z.object({ folder: folderSchema }),
    use: secretScope,
    async run(ctx, _actor, input, scope) {
      const { access, env } = scope;
      const folders = ctx.repo(folderRepository);
      const folder = await folders.byId(env.id, input.folderId);
      const parent = folder && parentPath(folder.path);
      const namedParent = input.path ?? input.directory;
      if (!folder || (namedParent !== undefined && namedParent !== parent)) throw new NotFoundError("Folder not found");
      access.require("edit", "secret-folders", { environment: env.slug, secretPath: parent! });
      const name = input.name ?? folder.name;
      const to = joinPath(parent!, name);
      const now = ctx.clock.now().toISOString();
      await writeSecrets(ctx, scope.project, async (tx, log) => {
        const subtree = to !== folder.path ? await folderSubtree(tx, env, folder.path) : [];
        const moved = subtree.length ? await authorizeFolderMove(tx, scope, subtree, folder.path, to) : [];
        // Announced folder by folder, parents first, names in order, whatever order the store returned them in.
        const rank = new Map(subtree.map((f, i) => [f.id, i]));
        moved.sort((a, b) => rank.get(a.secret.folder.id)! - rank.get(b.secret.folder.id)! || (a.secret.key < b.secret.key ? -1 : a.secret.key > b.secret.key ? 1 : 0));
        const description = input.description !== undefined ? input.description : folder.description;
        if (!(await tx.repo(folderRepository).move(env, folder, to, { name, description }, now))) {
          throw new BadRequestError(`Folder '${to}' already exists`);
        }
        // No secret event means "moved": a subscriber of the old path sees it go, one of the new path sees it come.
        const tags = moved.some((m) => m.secret.tagIds.length) ? await tx.repo(tagRepository).ofProject(scope.project.id) : new Map<string, TagRow>();
        for (const { secret, toPath } of moved) {
          const slugs = tagSlugsOf(secret.tagIds, tags);
          log.record("secret:delete", env, secret.folder.path, secret.key, slugs);
          log.record("secret:create", env, toPath, secret.key, slugs);
        }
      });
      return { folder: toFolder((await folders.byId(env.id, folder.id))!) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary:
      "Delete a folder with everything in it (sub-folders, secrets, imports). Name it by id or name inside `path`, " +
      "or give its own `path` without `folderIdOrName`.",
    audience: "principal",
    input: deleteFolderInput,
    output: z.object({ folder: folderSchema }),
    use: secretScope,
    async run(ctx, _actor, input, { access, project, cipher, env }) {
      const base = input.directory ?? input.path;
      const mayDeleteIn = (path: string) => access.require("delete", "secret-folders", { environment: env.slug, secretPath: parentPath(path) });
      const target = await locateFolder(ctx, env, base, input.folderIdOrName, mayDeleteIn);
      mayDeleteIn(target.path);
      return writeSecrets(ctx, project, async (tx, log) => {
        const subtree = await folderSubtree(tx, env, target.path);
        await requireRemovable(tx, access, env, subtree, `folder '${target.path}'`);
        const removed = await tx.repo(folderRepository).remove(env, subtree, ctx.clock.now().toISOString());
        // Announced folder by folder, parents first, whatever order the store returned them in.
        const rank = new Map(subtree.map((folder, i) => [folder.id, i]));
        removed.sort((a, b) => rank.get(a.folderId)! - rank.get(b.folderId)!);
        const tags = removed.some((r) => r.tagIds.length) ? await tx.repo(tagRepository).ofProject(project.id) : new Map<string, TagRow>();
        for (const row of removed) {
          const folder = subtree[rank.get(row.folderId)!];
          log.record("secret:delete", env, folder.path, decodeSecret(cipher, row, folder).key, tagSlugsOf(row.tagIds, tags));
        }
        return { folder: toFolder(target) };
      });
    },
  }),
};
