import { loadProjectAccess, type ProjectAccess } from "../access/project-access.js";
import type { Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { BadRequestError, NotFoundError } from "../kernel/errors.js";

/** The permission subjects of the certificate manager (DESIGN.md §4). */
export type CertificateSubject =
  | "certificate-authorities"
  | "certificates"
  | "certificate-profiles"
  | "pki-discovery"
  | "pki-installations"
  | "pki-alerts";

export type CertificateAction = "read" | "create" | "edit" | "delete";

/** A cert-manager project the actor may act on: 404 when out of sight, 400 for another project type, 403 without the permission. */
export async function openCertificateProject(
  ctx: Context,
  actor: Actor,
  projectId: string,
  subject: CertificateSubject,
  action: CertificateAction,
): Promise<ProjectAccess> {
  const access = await loadProjectAccess(ctx, actor, { projectId });
  if (access.project.type !== "cert-manager") {
    throw new BadRequestError(`The certificate manager works in cert-manager projects; this project's type is ${access.project.type}`);
  }
  access.require(action, subject);
  return access;
}

/**
 * A row of one of the certificate manager's tables, found by id, that the actor may act on. A row
 * of a project the actor cannot see answers 404 exactly like a row that does not exist.
 */
export async function openCertificateRecord<R extends { projectId: string }>(
  ctx: Context,
  actor: Actor,
  row: R | undefined,
  what: string,
  subject: CertificateSubject,
  action: CertificateAction,
): Promise<{ row: R; access: ProjectAccess }> {
  const notFound = () => new NotFoundError(`${what} not found`);
  if (!row) throw notFound();
  const access = await loadProjectAccess(ctx, actor, { projectId: row.projectId }).catch((error: unknown) => {
    throw error instanceof NotFoundError ? notFound() : error;
  });
  access.require(action, subject);
  return { row, access };
}
