import { rankedLive } from "../../access/environment-order.js";
import type { EnvironmentRow, ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { projectRepository } from "../../tenancy/projects/repository.js";
import { projectObject } from "../../tenancy/projects/view.js";

export const toEnvironment = (e: EnvironmentRow) => ({
  id: e.id,
  name: e.name,
  slug: e.slug,
  position: e.position,
  projectId: e.projectId,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** The project's live environments as answers show them: listed order, positions 1…n. */
export async function rankedEnvironments(ctx: Context, projectId: string): Promise<EnvironmentRow[]> {
  return rankedLive(await ctx.repo(projectRepository).environmentsOf(projectId));
}

export async function toEnvironmentAnswer(ctx: Context, project: ProjectRow, message: string, env: EnvironmentRow) {
  const envs = await ctx.repo(projectRepository).environmentsOf(project.id);
  // A deleted environment is no longer in the order; it shows the place it had.
  const shown = rankedLive(envs).find((e) => e.id === env.id) ?? env;
  return { message, workspace: projectObject(project, envs), environment: toEnvironment(shown) };
}
