import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { organizationRepository } from "./repository.js";

/**
 * An organization keeps at least one admin (a user or a machine identity): otherwise nobody could
 * manage its users, identities and projects again. Call inside the changing transaction, before
 * an admin is demoted or removed; `role` is the one it holds now.
 */
export async function assertKeepsAnAdmin(ctx: Context, orgId: string, role: string): Promise<void> {
  if (role !== "admin") return;
  const organizations = ctx.repo(organizationRepository);
  await organizations.lock(orgId);
  if ((await organizations.countAdmins(orgId)) <= 1) {
    throw new BadRequestError("An organization must keep at least one admin: make someone else admin first");
  }
}
