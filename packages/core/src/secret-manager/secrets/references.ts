import type { ProjectAccess } from "../../access/project-access.js";
import { accessRepository } from "../../access/repository.js";
import type { Context } from "../../kernel/context.js";
import type { ProjectCipher } from "../cipher.js";
import { folderRepository } from "../folders/repository.js";
import { FOLDER_NAME_PATTERN } from "../paths.js";
import type { TagRow } from "../tables.js";
import { decodeSecret } from "./model.js";
import { secretRepository } from "./repository.js";
import type { SecretObject } from "./schemas.js";
import { permissionObject } from "./visibility.js";

/**
 * Secret references, as Infisical writes them: `${KEY}` names a secret of the same folder,
 * `${env.KEY}` one at the root of environment `env`, `${env.a.b.KEY}` one in its folder `/a/b`.
 * Expansion is recursive up to MAX_DEPTH. A reference the caller may not read (`readValue` on
 * the referenced secret), that does not resolve, or that loops stays as written: expanding never
 * reveals more than reading each secret would.
 */
const REFERENCE = /\$\{([^${}]+)\}/g;
const MAX_DEPTH = 5;

export interface ReferenceScope {
  readonly ctx: Context;
  readonly access: ProjectAccess;
  readonly cipher: ProjectCipher;
  readonly projectId: string;
  readonly principalId: string | undefined;
  readonly tags: ReadonlyMap<string, TagRow>;
}

interface Location {
  environment: string;
  secretPath: string;
}

/** Expands the references in the shown values of `secrets`, in place. */
export async function expandReferences(scope: ReferenceScope, secrets: readonly SecretObject[]): Promise<void> {
  const resolver = new Resolver(scope);
  for (const secret of secrets) {
    if (secret.secretValueHidden || !secret.secretValue.includes("${")) continue;
    secret.secretValue = await resolver.expand(secret.secretValue, secret, 0, [`${secret.environment}:${secret.secretPath}:${secret.secretKey}`]);
  }
}

class Resolver {
  /** Resolved values by `env:path:key`, for one request. */
  private readonly values = new Map<string, Promise<string | undefined>>();

  constructor(private readonly scope: ReferenceScope) {}

  async expand(value: string, origin: Location, depth: number, chain: string[]): Promise<string> {
    const references = [...new Set([...value.matchAll(REFERENCE)].map((m) => m[1]))];
    if (references.length === 0) return value;
    const resolved = new Map<string, string | undefined>();
    for (const reference of references) resolved.set(reference, await this.resolve(reference, origin, depth, chain));
    return value.replace(REFERENCE, (whole, reference: string) => resolved.get(reference) ?? whole);
  }

  private resolve(reference: string, origin: Location, depth: number, chain: string[]): Promise<string | undefined> {
    const target = parseReference(reference, origin);
    if (!target || depth >= MAX_DEPTH) return Promise.resolve(undefined);
    const id = `${target.environment}:${target.secretPath}:${target.key}`;
    if (chain.includes(id)) return Promise.resolve(undefined);
    let value = this.values.get(id);
    if (!value) {
      value = this.lookup(target).then((raw) => (raw === undefined ? undefined : this.expand(raw, target, depth + 1, [...chain, id])));
      this.values.set(id, value);
    }
    return value;
  }

  /** The referenced secret's own value, if it exists and the caller may read it. */
  private async lookup(target: Location & { key: string }): Promise<string | undefined> {
    const { ctx, cipher, access, projectId, principalId, tags } = this.scope;
    const env = await ctx.repo(accessRepository).liveEnvironment(projectId, target.environment);
    const folder = env && (await ctx.repo(folderRepository).find(env.id, target.secretPath));
    if (!folder) return undefined;
    const [row] = await ctx.repo(secretRepository).visible([folder.id], principalId, cipher.storedIndexes([target.key]), cipher);
    if (!row) return undefined;
    const secret = decodeSecret(cipher, row, folder);
    const object = permissionObject(target.environment, folder.path, secret.key, secret.tagIds, tags);
    return access.can("readValue", "secrets", object) ? secret.value : undefined;
  }
}

function parseReference(reference: string, origin: Location): (Location & { key: string }) | undefined {
  const parts = reference.trim().split(".");
  if (parts.some((p) => p === "")) return undefined;
  if (parts.length === 1) return { ...origin, key: parts[0] };
  const folders = parts.slice(1, -1);
  if (!folders.every((f) => FOLDER_NAME_PATTERN.test(f))) return undefined;
  return { environment: parts[0], secretPath: folders.length ? `/${folders.join("/")}` : "/", key: parts[parts.length - 1] };
}
