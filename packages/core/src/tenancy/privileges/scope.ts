import { accessRepository } from "../../access/repository.js";
import type { ProjectRef } from "../../access/project-access.js";
import { openProjectScope, recordScope, type Capability, type ProjectScope } from "../../access/scope.js";
import type { PrivilegeRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import { privilegeRepository } from "./repository.js";

/** The identity whose privileges an operation reads or changes, its project membership, and the caller's access there. */
export interface PrivilegeTarget extends ProjectScope {
  readonly identityId: string;
  readonly membershipId: string;
}

/** Reading privileges needs `read` on `identity`; changing them needs `grant-privileges`. */
export type PrivilegeIntent = "read" | "grant";

const permissionFor = (intent: PrivilegeIntent): Capability => ({ action: intent === "read" ? "read" : "grant-privileges", subject: "identity" });

/** An identity outside the project's organization, or not a member of the project, is a 404. */
async function targetIn(ctx: Context, scope: ProjectScope, identityId: string): Promise<PrivilegeTarget> {
  const access = ctx.repo(accessRepository);
  const identity = await access.identity(identityId);
  if (!identity || identity.orgId !== scope.project.orgId) throw new NotFoundError("Identity not found");
  const membership = await access.projectMembership(scope.project.id, { kind: "identity", id: identityId });
  if (!membership) throw new NotFoundError("The identity is not a member of this project");
  return { ...scope, identityId, membershipId: membership.id };
}

/** Privileges addressed by project and identity. */
export const privilegeScope =
  <I>(options: { project: (input: I) => ProjectRef; identity: (input: I) => string; intent: PrivilegeIntent }): Middleware<I, PrivilegeTarget> =>
  async (ctx, actor, input) => {
    const scope = await openProjectScope(ctx, actor, input, { project: options.project, permission: permissionFor(options.intent) });
    return targetIn(ctx, scope, options.identity(input));
  };

/**
 * A privilege addressed by its id: one the caller may not see — its project, its identity or the
 * identity's membership out of sight — is a 404 exactly like one that does not exist.
 */
export const privilegeRecordScope = (intent: PrivilegeIntent): Middleware<{ id: string }, PrivilegeTarget & { record: PrivilegeRow }> => {
  const record = recordScope<{ id: string }, PrivilegeRow>({
    what: "Privilege",
    load: (ctx, input) => ctx.repo(privilegeRepository).byId(input.id),
    permission: permissionFor(intent),
  });
  return async (ctx, actor, input) => {
    const scope = await record(ctx, actor, input);
    const target = await targetIn(ctx, scope, scope.record.identityId).catch((error: unknown) => {
      throw error instanceof NotFoundError ? new NotFoundError("Privilege not found") : error;
    });
    return { ...target, record: scope.record };
  };
};
