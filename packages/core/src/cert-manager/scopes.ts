import { projectScope, recordScope, type ProjectScope, type ProjectTypeRule, type RecordScope } from "../access/scope.js";
import type { Context } from "../kernel/context.js";
import type { Middleware } from "../kernel/operation.js";

/** The permission subjects of the certificate manager (DESIGN.md §4). */
export type CertificateSubject =
  | "certificate-authorities"
  | "certificates"
  | "certificate-profiles"
  | "pki-discovery"
  | "pki-installations"
  | "pki-alerts";

export type CertificateAction = "read" | "create" | "edit" | "delete";

/** The certificate manager works in cert-manager projects; a project of another type is a 400. */
export const CERT_MANAGER_PROJECT: ProjectTypeRule = {
  type: "cert-manager",
  refusal: (actual) => `The certificate manager works in cert-manager projects; this project's type is ${actual}`,
};

/** A collection of a project named by the input's `projectId`: 404 when out of sight, 400 for another project type, 403 without the permission. */
export const certificateProject = (subject: CertificateSubject, action: CertificateAction): Middleware<{ projectId: string }, ProjectScope> =>
  projectScope({ project: (input) => ({ projectId: input.projectId }), type: CERT_MANAGER_PROJECT, permission: { action, subject } });

/**
 * One row of the certificate manager found by id, which the actor may act on. A row of a project
 * the actor cannot see answers 404 (`${what} not found`) exactly like a row that does not exist.
 */
export const certificateRecord = <I, R extends { projectId: string }>(
  what: string,
  subject: CertificateSubject,
  action: CertificateAction,
  load: (ctx: Context, input: I) => Promise<R | undefined>,
): Middleware<I, RecordScope<R>> => recordScope({ what, load, type: CERT_MANAGER_PROJECT, permission: { action, subject } });
