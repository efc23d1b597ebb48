import type { ProjectAccess, ProjectRow } from "../../access/project-access.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, PermissionDeniedError } from "../../kernel/errors.js";
import { projectCipher, type ProjectCipher } from "../../secret-manager/cipher.js";
import { decodeSecret, type FolderRef } from "../../secret-manager/secrets/model.js";
import { secretRepository } from "../../secret-manager/secrets/repository.js";
import { permissionObject } from "../../secret-manager/secrets/visibility.js";
import type { SecretRow } from "../../secret-manager/tables.js";
import { tagRepository } from "../../secret-manager/tags/repository.js";
import type { CredentialDefinition } from "../brokering/credentials.js";
import type { ServiceLocation } from "./location.js";

/**
 * Where credential values come from. A credential names a shared secret of the service's own
 * folder; dynamic secrets are not offered by this server, so a credential naming one never
 * resolves and is refused when it is defined.
 */

const SHARED = { type: "shared", ownerId: "" } as const;

async function findSharedSecret(ctx: Context, cipher: ProjectCipher, folder: FolderRef, key: string): Promise<SecretRow | undefined> {
  return (await ctx.repo(secretRepository).ofKind(folder.id, [cipher.blindIndex(key)], SHARED))[0];
}

/**
 * Every credential's value source must exist in the service's folder (400 listing each missing one),
 * and the caller must be allowed to read each value (403): defining a credential hands the value
 * to whatever host the pattern names, so it is as strong as reading it.
 */
export async function checkCredentialSources(
  ctx: Context,
  access: ProjectAccess,
  location: ServiceLocation,
  credentials: readonly CredentialDefinition[],
): Promise<void> {
  const cipher = await projectCipher(ctx, access.project);
  const where = `${location.env.slug}:${location.folder.path}`;
  const problems: string[] = [];
  const found: { key: string; row: SecretRow }[] = [];
  for (const [index, credential] of credentials.entries()) {
    if (credential.dynamicSecretName !== null) {
      problems.push(`credentials[${index}]: dynamic secret '${credential.dynamicSecretName}' not found in ${where}`);
      continue;
    }
    const key = credential.secretKey!;
    const row = await findSharedSecret(ctx, cipher, location.folder, key);
    if (row) found.push({ key, row });
    else problems.push(`credentials[${index}]: secret '${credential.secretKey}' not found in ${where}`);
  }
  if (problems.length > 0) throw new BadRequestError(problems.join("; "));

  const tags = found.some(({ row }) => row.tagIds.length > 0) ? await ctx.repo(tagRepository).ofProject(access.project.id) : new Map();
  for (const { key, row } of found) {
    if (!access.can("readValue", "secrets", permissionObject(location.env.slug, location.folder.path, key, row.tagIds, tags))) {
      throw new PermissionDeniedError(`You are not allowed to readValue secret '${key}' in ${where}, so you cannot hand it to a proxied service`);
    }
  }
}

/** The current values of a service's credentials, in order; `missing` names the first that has none. */
export async function credentialValues(
  ctx: Context,
  project: ProjectRow,
  folder: FolderRef,
  credentials: readonly CredentialDefinition[],
): Promise<{ values: string[] } | { missing: string }> {
  const cipher = await projectCipher(ctx, project);
  const values: string[] = [];
  for (const credential of credentials) {
    if (credential.secretKey === null) return { missing: `dynamic secret '${credential.dynamicSecretName}'` };
    const row = await findSharedSecret(ctx, cipher, folder, credential.secretKey);
    if (!row) return { missing: `secret '${credential.secretKey}'` };
    values.push(decodeSecret(cipher, row, folder).value);
  }
  return { values };
}
