import { accessRepository } from "../../access/repository.js";
import type { ProjectRef } from "../../access/project-access.js";
import { refuseOwnAccessChange } from "../../access/own-access.js";
import { membershipPermissions } from "../../access/project-access.js";
import { openProjectScope, recordScope, type Capability, type ProjectScope } from "../../access/scope.js";
import type { PrivilegeRow } from "../../access/tables.js";
import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { NotFoundError } from "../../kernel/errors.js";
import type { Middleware } from "../../kernel/operation.js";
import { assertHoldsAll } from "../grants.js";
import { privilegeRepository } from "./repository.js";

/** The identity whose privileges an operation reads or changes, its project membership, and the caller's access there. */
export interface PrivilegeTarget extends ProjectScope {
  readonly identityId: string;
  readonly membershipId: string;
}

/** Reading privileges needs `read` on `identity`; changing them needs `grant-privileges`. */
export type PrivilegeIntent = "read" | "grant";

const permissionFor = (intent: PrivilegeIntent): Capability => ({ action: intent === "read" ? "read" : "grant-privileges", subject: "identity" });

/**
 * An identity outside the project's organization, or not a member of the project, is a 404. An
 * identity may read its own privileges, never change them; changing another's takes holding
 * every permission it has (its roles and privileges), as Infisical refuses changing the
 * privileges of a more privileged identity.
 */
async function targetIn(ctx: Context, actor: Actor, scope: ProjectScope, identityId: string, intent: PrivilegeIntent): Promise<PrivilegeTarget> {
  const access = ctx.repo(accessRepository);
  const identity = await access.identity(identityId);
  if (!identity || identity.orgId !== scope.project.orgId) throw new NotFoundError("Identity not found");
  const membership = await access.projectMembership(scope.project.id, { kind: "identity", id: identityId });
  if (!membership) throw new NotFoundError("The identity is not a member of this project");
  if (intent === "grant") {
    refuseOwnAccessChange(actor, membership, "privileges");
    assertHoldsAll(scope.access, await membershipPermissions(ctx, membership), "You cannot change the privileges of an identity holding permissions you do not hold yourself");
  }
  return { ...scope, identityId, membershipId: membership.id };
}

/** Privileges addressed by project and identity. */
export const privilegeScope =
  <I>(options: { project: (input: I) => ProjectRef; identity: (input: I) => string; intent: PrivilegeIntent }): Middleware<I, PrivilegeTarget> =>
  async (ctx, actor, input) => {
    const scope = await openProjectScope(ctx, actor, input, { project: options.project, permission: permissionFor(options.intent) });
    return targetIn(ctx, actor, scope, options.identity(input), options.intent);
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
    const target = await targetIn(ctx, actor, scope, scope.record.identityId, intent).catch((error: unknown) => {
      throw error instanceof NotFoundError ? new NotFoundError("Privilege not found") : error;
    });
    return { ...target, record: scope.record };
  };
};
