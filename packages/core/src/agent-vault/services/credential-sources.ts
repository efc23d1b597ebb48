import type { ProjectAccess, ProjectRow } from "../../access/project-access.js";
import { heldCredentialValue } from "../../dynamic-secrets/held-leases.js";
import { providerOf } from "../../dynamic-secrets/providers.js";
import { DYNAMIC_SECRETS_SUBJECT } from "../../dynamic-secrets/scope.js";
import { dynamicSecretRepository } from "../../dynamic-secrets/secrets/repository.js";
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
 * Where credential values come from: a shared secret of the service's own folder (`secretKey`),
 * or a field of a dynamic secret of that folder (`dynamicSecretName` + `dynamicSecretField`),
 * whose lease the server holds for each proxy that brokers the credential.
 */

const SHARED = { type: "shared", ownerId: "" } as const;

async function findSharedSecret(ctx: Context, cipher: ProjectCipher, folder: FolderRef, key: string): Promise<SecretRow | undefined> {
  return (await ctx.repo(secretRepository).ofKind(folder.id, cipher.storedIndexes([key]), SHARED))[0];
}

/**
 * Every credential's value source must exist in the service's folder (400 listing each missing one),
 * and the caller must be allowed to read each value (403, see `requireCredentialReads`).
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
  const object = { environment: location.env.slug, secretPath: location.folder.path };
  for (const [index, credential] of credentials.entries()) {
    if (credential.dynamicSecretName !== null) {
      const problem = await dynamicSourceProblem(ctx, location, credential.dynamicSecretName, credential.dynamicSecretField!);
      if (problem) problems.push(`credentials[${index}]: ${problem} in ${where}`);
      // Brokering a dynamic secret leases it for the proxy: as strong as leasing it oneself.
      else if (!access.can("lease", DYNAMIC_SECRETS_SUBJECT, object)) {
        throw new PermissionDeniedError(
          `You are not allowed to lease dynamic secret '${credential.dynamicSecretName}' in ${where}, so you cannot hand it to a proxied service`,
        );
      }
      continue;
    }
    if (!(await findSharedSecret(ctx, cipher, location.folder, credential.secretKey!))) {
      problems.push(`credentials[${index}]: secret '${credential.secretKey}' not found in ${where}`);
    }
  }
  if (problems.length > 0) throw new BadRequestError(problems.join("; "));
  await requireCredentialReads(ctx, access, location, credentials);
}

/**
 * 403 unless the caller may `readValue` every secret these credentials hand over. Defining a
 * credential, and every later change to where it goes (the host pattern, enabling the service, the
 * bundles and grantees that carry it), hands the value to whoever answers there: such a change is
 * as strong as reading the value. A secret that does not exist (yet) is checked by its name, as a
 * secret without tags: it would be handed over the moment it is created.
 */
export async function requireCredentialReads(
  ctx: Context,
  access: ProjectAccess,
  location: ServiceLocation,
  credentials: readonly Pick<CredentialDefinition, "secretKey">[],
): Promise<void> {
  const keys = [...new Set(credentials.map((c) => c.secretKey).filter((key): key is string => key !== null))];
  if (keys.length === 0) return;
  const cipher = await projectCipher(ctx, access.project);
  const rows = new Map<string, SecretRow | undefined>();
  for (const key of keys) rows.set(key, await findSharedSecret(ctx, cipher, location.folder, key));
  const tagged = [...rows.values()].some((row) => row !== undefined && row.tagIds.length > 0);
  const tags = tagged ? await ctx.repo(tagRepository).ofProject(access.project.id) : new Map();
  for (const key of keys) {
    const object = permissionObject(location.env.slug, location.folder.path, key, rows.get(key)?.tagIds ?? [], tags);
    if (!access.can("readValue", "secrets", object)) {
      throw new PermissionDeniedError(
        `You are not allowed to readValue secret '${key}' in ${location.env.slug}:${location.folder.path}, so you cannot decide where a proxied service sends it`,
      );
    }
  }
}

/** Why a dynamic secret cannot feed a credential (missing, or no such field), or undefined. */
async function dynamicSourceProblem(ctx: Context, location: ServiceLocation, name: string, field: string): Promise<string | undefined> {
  const secret = await ctx.repo(dynamicSecretRepository).byName(location.folder.id, name);
  if (!secret) return `dynamic secret '${name}' not found`;
  const { fields } = providerOf(ctx, secret.type);
  if (!fields.includes(field)) return `dynamic secret '${name}' has no field '${field}' (it has ${fields.join(", ")})`;
  return undefined;
}

/**
 * The current values of a service's credentials for one proxy, in order; `missing` names the
 * first that has none. A dynamic credential's value comes from the lease held for this proxy,
 * service and dynamic secret, made or renewed as needed.
 */
export async function credentialValues(
  ctx: Context,
  project: ProjectRow,
  folder: FolderRef,
  credentials: readonly CredentialDefinition[],
  proxy: { id: string; pollInterval: number },
  serviceId: string,
): Promise<{ values: string[] } | { missing: string }> {
  const cipher = await projectCipher(ctx, project);
  const values: string[] = [];
  for (const credential of credentials) {
    if (credential.secretKey === null) {
      const held = await heldCredentialValue(ctx, {
        proxyId: proxy.id,
        serviceId,
        project,
        folderId: folder.id,
        dynamicSecretName: credential.dynamicSecretName!,
        field: credential.dynamicSecretField!,
        // The proxy keeps a decision until its next poll: the lease must outlive two of them.
        keptForMs: 2 * proxy.pollInterval * 1000,
      });
      if ("missing" in held) return held;
      values.push(held.value);
      continue;
    }
    const row = await findSharedSecret(ctx, cipher, folder, credential.secretKey);
    if (!row) return { missing: `secret '${credential.secretKey}'` };
    values.push(decodeSecret(cipher, row, folder).value);
  }
  return { values };
}
