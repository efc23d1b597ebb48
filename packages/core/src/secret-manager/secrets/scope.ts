import { liveEnvironment } from "../../access/environments.js";
import { loadProjectAccess, type ProjectAccess, type ProjectRef, type ProjectRow } from "../../access/project-access.js";
import type { EnvironmentRow } from "../../access/tables.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { projectCipher, type ProjectCipher } from "../cipher.js";

/** The project an operation works in, the caller's access to it, and its data key. */
export interface ProjectScope {
  readonly access: ProjectAccess;
  readonly project: ProjectRow;
  readonly cipher: ProjectCipher;
}

export interface EnvironmentScope extends ProjectScope {
  readonly env: EnvironmentRow;
}

/** 403 for callers without any role in the project: outsiders learn nothing, not even which names exist. */
export async function openProject(ctx: Context, actor: Actor, ref: ProjectRef): Promise<ProjectScope> {
  const access = await loadProjectAccess(ctx, actor, ref);
  access.requireMembership();
  return { access, project: access.project, cipher: await projectCipher(ctx, ctx.storage, access.project) };
}

/** Unknown projects and unknown or soft-deleted environments are 404. */
export async function openEnvironment(ctx: Context, actor: Actor, ref: ProjectRef, environment: string): Promise<EnvironmentScope> {
  const { access, project, cipher } = await openProject(ctx, actor, ref);
  return { access, project, cipher, env: await liveEnvironment(ctx, project.id, environment) };
}
