import type { Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { BadRequestError, NotFoundError } from "../kernel/errors.js";
import type { Middleware } from "../kernel/operation.js";
import { liveEnvironment } from "./environments.js";
import { loadProjectAccess, type ProjectAccess, type ProjectRef } from "./project-access.js";
import type { EnvironmentRow, ProjectRow } from "./tables.js";

/**
 * The access layer's middleware, declared on an operation (`use: projectScope({...})`): project
 * lookup (404 for what the actor may not know exists), the project-type check (400), membership
 * and the permission check (403) — once, the same way for every area.
 */
export interface ProjectScope {
  readonly access: ProjectAccess;
  readonly project: ProjectRow;
}

export interface EnvironmentScope extends ProjectScope {
  readonly env: EnvironmentRow;
}

export interface RecordScope<R> extends ProjectScope {
  readonly record: R;
}

/** A project type an operation works in, and how a project of another type is refused. */
export interface ProjectTypeRule {
  readonly type: string;
  /** The refusal's message, given the project's actual type. */
  readonly refusal: (actual: string) => string;
}

/** A permission without a concrete object: only for operations that touch no particular secret. */
export interface Capability {
  readonly action: string;
  readonly subject: string;
}

export interface ProjectScopeOptions<I> {
  /** Where the input names the project. */
  readonly project: (input: I) => ProjectRef;
  readonly type?: ProjectTypeRule;
  /** 403 unless the actor holds a role in the project (outsiders learn nothing, not even which names exist). */
  readonly membership?: boolean;
  readonly permission?: Capability;
}

export interface EnvironmentScopeOptions<I> extends ProjectScopeOptions<I> {
  /** Where the input names the environment (a slug): unknown and soft-deleted ones are 404. */
  readonly environment: (input: I) => string;
}

export interface RecordScopeOptions<I, R extends { projectId: string }> {
  /** Names the record in its 404: `${what} not found`. */
  readonly what: string;
  readonly load: (ctx: Context, input: I) => Promise<R | undefined>;
  readonly type?: ProjectTypeRule;
  /** Checked against the record's project; a function when the check depends on the record. */
  readonly permission?: Capability | ((record: R, input: I) => Capability & { object?: Record<string, unknown> });
}

function checkType(project: ProjectRow, rule: ProjectTypeRule | undefined): void {
  if (rule && project.type !== rule.type) throw new BadRequestError(rule.refusal(project.type));
}

export async function openProjectScope<I>(ctx: Context, actor: Actor, input: I, options: ProjectScopeOptions<I>): Promise<ProjectScope> {
  const access = await loadProjectAccess(ctx, actor, options.project(input));
  checkType(access.project, options.type);
  if (options.membership) access.requireMembership();
  if (options.permission) access.require(options.permission.action, options.permission.subject);
  return { access, project: access.project };
}

export const projectScope =
  <I>(options: ProjectScopeOptions<I>): Middleware<I, ProjectScope> =>
  (ctx, actor, input) =>
    openProjectScope(ctx, actor, input, options);

export const environmentScope =
  <I>(options: EnvironmentScopeOptions<I>): Middleware<I, EnvironmentScope> =>
  async (ctx, actor, input) => {
    const scope = await openProjectScope(ctx, actor, input, options);
    return { ...scope, env: await liveEnvironment(ctx, scope.project.id, options.environment(input)) };
  };

/**
 * A record addressed by id. A record of a project the actor cannot see answers 404 exactly like
 * a record that does not exist.
 */
export const recordScope =
  <I, R extends { projectId: string }>(options: RecordScopeOptions<I, R>): Middleware<I, RecordScope<R>> =>
  async (ctx, actor, input) => {
    const notFound = () => new NotFoundError(`${options.what} not found`);
    const record = await options.load(ctx, input);
    if (!record) throw notFound();
    const access = await loadProjectAccess(ctx, actor, { projectId: record.projectId }).catch((error: unknown) => {
      throw error instanceof NotFoundError ? notFound() : error;
    });
    checkType(access.project, options.type);
    const permission: (Capability & { object?: Record<string, unknown> }) | undefined =
      typeof options.permission === "function" ? options.permission(record, input) : options.permission;
    if (permission) access.require(permission.action, permission.subject, permission.object);
    return { access, project: access.project, record };
  };
