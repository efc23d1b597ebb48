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
import type { SecretImportRow } from "../tables.js";
import { importRepository } from "./repository.js";
import { createImportInput, deleteImportInput, listImportsInput, secretImportSchema } from "./schemas.js";
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

  delete: defineOperation({
    name: "delete",
    summary: "Remove an import from its folder",
    audience: "principal",
    input: deleteImportInput,
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    use: memberProjectScope,
    async run(ctx, _actor, input, { access, project }) {
      const imports = ctx.repo(importRepository);
      const row = await imports.byId(project.id, input.secretImportId);
      const env = row && (await ctx.repo(environmentRepository).liveById(project.id, row.envId));
      if (!row || !env) throw new NotFoundError("Secret import not found");
      const path = await ctx.repo(folderRepository).pathOf(env.id, row.folderId);
      access.require("delete", "secret-imports", { environment: env.slug, secretPath: path ?? ROOT_PATH });
      await imports.delete(row.id);
      return { message: "Successfully deleted secret import", secretImport: await shown(ctx, row) };
    },
  }),
};
