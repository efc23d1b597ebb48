import { z } from "zod";
import type { Context } from "../../kernel/context.js";
import { requireEnvironment } from "../environments/lookup.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { requireFolder } from "../folders/tree.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { isoDateTime } from "../../kernel/schemas.js";
import { environmentSlug, projectScoped } from "../input-fields.js";
import { ROOT_PATH, secretPathSchema } from "../paths.js";
import { openProject } from "../secrets/scope.js";
import type { SecretImportRow } from "./resolve.js";
import { importsOf } from "./resolve.js";

const secretImportSchema = z.object({
  id: z.string(),
  folderId: z.string(),
  importPath: z.string(),
  importEnv: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
  position: z.number().int(),
  isReplication: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

async function toSecretImport(ctx: Context, row: SecretImportRow) {
  const env = await ctx.storage.tables.environments.get(row.importEnvId);
  return {
    id: row.id,
    folderId: row.folderId,
    importPath: row.importPath,
    importEnv: { id: row.importEnvId, name: env?.name ?? "", slug: env?.slug ?? "" },
    position: row.position,
    isReplication: row.isReplication,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const location = { environment: environmentSlug, path: secretPathSchema.default(ROOT_PATH) };

export const secretImportOperations = {
  create: defineOperation({
    name: "create",
    summary: "Make a folder import the secrets of another environment and path of the same project",
    audience: "principal",
    input: projectScoped({
      ...location,
      import: z.object({ environment: environmentSlug, path: secretPathSchema }),
      isReplication: z.boolean().default(false),
    }),
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      if (input.isReplication) throw new BadRequestError("Replicated imports are not supported");
      const storage = ctx.storage;
      const env = await requireEnvironment(storage, project.id, input.environment);
      access.require("create", "secret-imports", { environment: env.slug, secretPath: input.path });
      const folder = await requireFolder(storage, env, input.path);
      const sourceEnv = await requireEnvironment(storage, project.id, input.import.environment);
      await requireFolder(storage, sourceEnv, input.import.path);
      if (sourceEnv.id === env.id && input.import.path === input.path) throw new BadRequestError("A folder cannot import itself");
      const row = await storage.transaction(async (tx) => {
        const existing = await importsOf(tx, [folder]);
        if (existing.some((e) => e.importEnvId === sourceEnv.id && e.importPath === input.import.path)) {
          throw new BadRequestError("This folder already imports that environment and path");
        }
        const now = ctx.clock.now().toISOString();
        const created: SecretImportRow = {
          id: newId(),
          projectId: project.id,
          envId: env.id,
          folderId: folder.id,
          importEnvId: sourceEnv.id,
          importPath: input.import.path,
          position: Math.max(0, ...existing.map((e) => e.position)) + 1,
          isReplication: false,
          createdAt: now,
          updatedAt: now,
        };
        await tx.tables.secretImports.insert(created);
        return created;
      });
      return { message: "Successfully created secret import", secretImport: await toSecretImport(ctx, row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List a folder's imports in position order",
    audience: "principal",
    input: projectScoped(location),
    output: z.object({ secretImports: z.array(secretImportSchema) }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      const env = await requireEnvironment(ctx.storage, project.id, input.environment);
      access.require("read", "secret-imports", { environment: env.slug, secretPath: input.path });
      const folder = await requireFolder(ctx.storage, env, input.path);
      const rows = await importsOf(ctx.storage, [folder]);
      return { secretImports: await Promise.all(rows.map((r) => toSecretImport(ctx, r))) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Remove an import from its folder",
    audience: "principal",
    input: projectScoped({ secretImportId: z.string().min(1).max(255) }),
    output: z.object({ message: z.string(), secretImport: secretImportSchema }),
    async run(ctx, actor, input) {
      const { access, project } = await openProject(ctx, actor, input.project);
      const row = await ctx.storage.tables.secretImports.findOne({ id: input.secretImportId, projectId: project.id });
      const env = row && (await ctx.storage.tables.environments.get(row.envId));
      if (!row || !env || env.deletedAt) throw new NotFoundError("Secret import not found");
      const path = row.folderId === env.id ? ROOT_PATH : (await ctx.storage.tables.secretFolders.get(row.folderId))?.path;
      access.require("delete", "secret-imports", { environment: env.slug, secretPath: path ?? ROOT_PATH });
      await ctx.storage.tables.secretImports.delete({ id: row.id });
      return { message: "Successfully deleted secret import", secretImport: await toSecretImport(ctx, row) };
    },
  }),
};
