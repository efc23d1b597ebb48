import { z } from "zod";
import { defineOperation } from "../../kernel/operation.js";
import { joinPath, parentPath } from "../paths.js";
import { memberEnvironmentScope, secretScope } from "../scope.js";
import { writeSecrets } from "../secrets/change-log.js";
import { decodeSecret } from "../secrets/model.js";
import { folderRepository } from "./repository.js";
import { createFolderInput, deleteFolderInput, folderSchema, listFoldersInput } from "./schemas.js";
import { createPath, folderSubtree, locateFolder } from "./tree.js";
import { toFolder } from "./view.js";

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
      const folder = await ctx.withTransaction((tx) => createPath(tx, env, joinPath(parent, input.name), input.description ?? null, now, mayCreateIn));
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
      const target = await locateFolder(ctx, env, base, input.folderIdOrName);
      access.require("delete", "secret-folders", { environment: env.slug, secretPath: parentPath(target.path) });
      return writeSecrets(ctx, project, async (tx, log) => {
        const subtree = await folderSubtree(tx, env, target.path);
        const removed = await tx.repo(folderRepository).remove(env, subtree, ctx.clock.now().toISOString());
        // Announced folder by folder, parents first, whatever order the store returned them in.
        const rank = new Map(subtree.map((folder, i) => [folder.id, i]));
        removed.sort((a, b) => rank.get(a.folderId)! - rank.get(b.folderId)!);
        for (const row of removed) {
          const folder = subtree[rank.get(row.folderId)!];
          log.record("secret:delete", env, folder.path, decodeSecret(cipher, row, folder).key);
        }
        return { folder: toFolder(target) };
      });
    },
  }),
};
