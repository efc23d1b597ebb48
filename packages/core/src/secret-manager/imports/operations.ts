import { z } from "zod";
import { liveEnvironment } from "../../access/environments.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { environmentRepository } from "../environments/repository.js";
import { folderRepository } from "../folders/repository.js";
import { requireFolder } from "../folders/tree.js";
import { ROOT_PATH } from "../paths.js";
import { memberEnvironmentScope, memberProjectScope } from "../scope.js";
import { requireCouldDescribe } from "../secrets/visibility.js";
import type { SecretImportRow } from "../tables.js";
import { importRepository } from "./repository.js";
import { createImportInput, deleteImportInput, listImportsInput, secretImportSchema, updateImportInput } from "./schemas.js";
import { toSecretImport } from "./view.js";

const shown = async (ctx: Context, row: SecretImportRow) => toSecretImport(row, await ctx.repo(environmentRepository).byId(row.importEnvId));

export const secretImportOperations = {
  create: defineOperation({
    name: "create",
    summary: "Make a folder import the secrets of another environment and path of the same project",
    audience: "principal",
    input: createImportInput,
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    // Not an environment scope: a replicated import is refused before either environment is looked up.
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      if (input.isReplication) throw new BadRequestError("Replicated imports are not supported");
      const env = await liveEnvironment(ctx, project.id, input.environment);
      access.require("create", "secret-imports", { environment: env.slug, secretPath: input.path });
      const folder = await requireFolder(ctx, env, input.path);
      const sourceEnv = await liveEnvironment(ctx, project.id, input.import.environment);
      // Whether a source folder exists is news only to who could describe a secret in it.
      requireCouldDescribe(access, sourceEnv.slug, input.import.path, undefined);
      await requireFolder(ctx, sourceEnv, input.import.path);
      if (sourceEnv.id === env.id && input.import.path === input.path) throw new BadRequestError("A folder cannot import itself");
      const now = ctx.clock.now().toISOString();
      const row = await ctx.repo(importRepository).create({
        id: newId(),
        projectId: project.id,
        envId: env.id,
        folderId: folder.id,
        importEnvId: sourceEnv.id,
        importPath: input.import.path,
        isReplication: false,
        createdAt: now,
        updatedAt: now,
      });
      if (!row) throw new BadRequestError("This folder already imports that environment and path");
      return { message: "Successfully created secret import", secretImport: await shown(ctx, row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a folder's imports in position order",
    audience: "principal",
    input: listImportsInput,
    output: z.object({ secretImports: z.array(secretImportSchema) }),
    use: memberEnvironmentScope,
    async run(ctx, _actor, input, { access, env }) {
      access.require("read", "secret-imports", { environment: env.slug, secretPath: input.path });
      const folder = await requireFolder(ctx, env, input.path);
      const rows = await ctx.repo(importRepository).ofFolders([folder]);
      return { secretImports: await Promise.all(rows.map((row) => shown(ctx, row))) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary:
      "Change an import's source (environment and path) or move it to another position among its folder's imports " +
      "(1 is first; the others shift, so positions stay 1…n)",
    audience: "principal",
    input: updateImportInput,
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      const { row, env, path } = await locateImport(ctx, project.id, input.secretImportId);
      if ((input.environment !== undefined && input.environment !== env.slug) || (input.path !== undefined && input.path !== path)) {
        throw new NotFoundError("Secret import not found");
      }
      access.require("edit", "secret-imports", { environment: env.slug, secretPath: path });
      const sourceEnv = input.import.environment === undefined ? undefined : await liveEnvironment(ctx, project.id, input.import.environment);
      const importEnvId = sourceEnv?.id ?? row.importEnvId;
      const importPath = input.import.path ?? row.importPath;
      if (importEnvId !== row.importEnvId || importPath !== row.importPath) {
        const source = await ctx.repo(environmentRepository).liveById(project.id, importEnvId);
        if (!source) throw new NotFoundError("The imported environment no longer exists");
        // As on creation: whether the new source folder exists is news only to who could describe a secret in it.
        requireCouldDescribe(access, source.slug, importPath, undefined);
        await requireFolder(ctx, source, importPath);
        if (importEnvId === env.id && importPath === path) throw new BadRequestError("A folder cannot import itself");
      }
      const updated = await ctx.repo(importRepository).update(row, {
        importEnvId,
        importPath,
        ...(input.import.position !== undefined ? { position: input.import.position } : {}),
        updatedAt: ctx.clock.now().toISOString(),
      });
      if (updated === "duplicate") throw new BadRequestError("This folder already imports that environment and path");
      if (!updated) throw new NotFoundError("Secret import not found");
      return { message: "Successfully updated secret import", secretImport: await shown(ctx, updated) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Remove an import from its folder; the folder's later imports move up a position",
    audience: "principal",
    input: deleteImportInput,
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      const { row, env, path } = await locateImport(ctx, project.id, input.secretImportId);
      access.require("delete", "secret-imports", { environment: env.slug, secretPath: path });
      await ctx.repo(importRepository).delete(row, ctx.clock.now().toISOString());
      return { message: "Successfully deleted secret import", secretImport: await shown(ctx, row) };
    },
  }),
};

/** An import of the project by id, with its folder's live environment and path; 404 otherwise. */
async function locateImport(ctx: Context, projectId: string, id: string) {
  const row = await ctx.repo(importRepository).byId(projectId, id);
  const env = row && (await ctx.repo(environmentRepository).liveById(projectId, row.envId));
  if (!row || !env) throw new NotFoundError("Secret import not found");
  const path = (await ctx.repo(folderRepository).pathOf(env.id, row.folderId)) ?? ROOT_PATH;
  return { row, env, path };
}
