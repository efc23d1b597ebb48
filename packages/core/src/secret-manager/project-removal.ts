import { defineRepository } from "../kernel/context.js";
import { tablesOf } from "../storage/table.js";
import { secretTables } from "./tables.js";

/**
 * The secret manager's part of a project deletion (tenancy's `projectRemoved`, see src/hooks.ts):
 * every secret with its versions, import, folder and tag of the project, and its stamp. The environments are
 * access's rows; tenancy removes them with the project.
 */
export const secretManagerRemoval = defineRepository("secret-manager.project-removal", (ctx) => {
  const t = tablesOf(ctx.storage, secretTables);
  return {
    async removeProject(projectId: string): Promise<void> {
      await t.secretVersions.delete({ projectId });
      await t.secrets.delete({ projectId });
      await t.secretImports.delete({ projectId });
      await t.secretFolders.delete({ projectId });
      await t.secretTags.delete({ projectId });
      await t.secretStamps.delete({ id: projectId });
    },
  };
});
