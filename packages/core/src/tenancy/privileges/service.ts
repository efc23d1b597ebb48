import { accessRepository } from "../../access/repository.js";
import type { PrivilegeRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { randomAlphanumeric } from "../../kernel/ids.js";
import type { PermissionRule } from "../../permissions/index.js";
import { assertWithinBoundary, grantEnd, temporaryWindow, type TemporaryInput } from "../grants.js";
import { privilegeRepository, type PrivilegePatch } from "./repository.js";
import type { PrivilegeTarget } from "./scope.js";

/**
 * The one set of privilege operations. The v1 and v2 APIs are two shapes of it: each resolves its
 * own address to a `PrivilegeTarget` (see scope.ts), turns its input into these arguments and
 * shows the result its own way (view.ts).
 */

export interface PrivilegeGrant extends TemporaryInput {
  /** Generated when absent. */
  slug?: string;
  permissions: PermissionRule[];
}

export interface PrivilegeChange {
  slug?: string;
  permissions?: PermissionRule[];
  temporary?: TemporaryInput;
}

/** In the order they were granted. */
export const listPrivileges = (ctx: Context, target: PrivilegeTarget): Promise<PrivilegeRow[]> =>
  ctx.repo(accessRepository).privilegesOf(target.membershipId);

export async function privilegeBySlug(ctx: Context, target: PrivilegeTarget, slug: string): Promise<PrivilegeRow> {
  const row = await ctx.repo(privilegeRepository).bySlug(target.membershipId, slug);
  if (!row) throw new NotFoundError(`Privilege '${slug}' not found`);
  return row;
}

export async function grantPrivilege(ctx: Context, target: PrivilegeTarget, grant: PrivilegeGrant): Promise<PrivilegeRow> {
  const now = ctx.clock.now();
  const window = temporaryWindow(grant, now);
  assertWithinBoundary(target.access, grant.permissions, { now, until: grantEnd(window) });
  const slug = grant.slug ?? `privilege-${randomAlphanumeric(10).toLowerCase()}`;
  await assertSlugFree(ctx, target, slug);
  return ctx.repo(privilegeRepository).create(
    {
      projectMembershipId: target.membershipId,
      identityId: target.identityId,
      projectId: target.project.id,
      slug,
      permissions: grant.permissions,
      isTemporary: grant.isTemporary,
      ...window,
    },
    now,
  );
}

/**
 * A change of permissions or of the window (made permanent, moved, widened — any new window) is a
 * grant of the privilege as it will be: the boundary runs against its permissions for as long as
 * its window lets it last. A change of slug alone grants nothing.
 */
export async function changePrivilege(ctx: Context, target: PrivilegeTarget, id: string, change: PrivilegeChange): Promise<PrivilegeRow> {
  const now = ctx.clock.now();
  const window = change.temporary && { isTemporary: change.temporary.isTemporary, ...temporaryWindow(change.temporary, now) };
  const updated = await ctx.repo(privilegeRepository).update(id, now, async (row, tx): Promise<PrivilegePatch> => {
    if (change.permissions || window) {
      const permissions = change.permissions ?? (row.permissions as PermissionRule[]);
      assertWithinBoundary(target.access, permissions, { now, until: grantEnd(window ?? row) });
    }
    if (change.slug && change.slug !== row.slug) await assertSlugFree(tx, target, change.slug);
    return {
      ...(change.slug !== undefined && { slug: change.slug }),
      ...(change.permissions !== undefined && { permissions: change.permissions }),
      ...window,
    };
  });
  if (!updated) throw new NotFoundError("Privilege not found");
  return updated;
}

export async function revokePrivilege(ctx: Context, row: PrivilegeRow): Promise<PrivilegeRow> {
  await ctx.repo(privilegeRepository).delete(row.id);
  return row;
}

async function assertSlugFree(ctx: Context, target: PrivilegeTarget, slug: string): Promise<void> {
  if (await ctx.repo(privilegeRepository).bySlug(target.membershipId, slug)) {
    throw new BadRequestError(`A privilege with slug '${slug}' already exists for this identity`);
  }
}
