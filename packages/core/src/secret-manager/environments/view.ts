import type { EnvironmentRow, ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { toProject } from "../../tenancy/projects/view.js";

export const toEnvironment = (e: EnvironmentRow) => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  position: e.position,
  projectId: e.projectId,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

export async function toEnvironmentAnswer(ctx: Context, project: ProjectRow, message: string, env: EnvironmentRow) {
  return { message, workspace: await toProject(ctx, project), environment: toEnvironment(env) };
}
