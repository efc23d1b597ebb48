import { expectStatus } from "./errors.js";
import { call, type ServerTarget } from "./http.js";

/** Which secrets: a project, an environment slug and a folder path. */
export interface SecretScope {
  readonly projectId: string;
  readonly environment: string;
  readonly secretPath: string;
}

/** A secret as the CLI shows it (the API's field names shortened). */
export interface SecretEntry {
  readonly id: string;
  readonly key: string;
  readonly value: string;
  readonly type: string;
  readonly secretPath: string;
  readonly comment: string;
  readonly skipMultilineEncoding: boolean;
  readonly version: number;
  readonly tags: readonly { id: string; slug: string; name: string; color: string }[];
  /** The environment and path it was imported from, when it came through an import. */
  readonly importedFrom?: string;
}

interface ApiSecret {
  id: string;
  secretKey: string;
  secretValue: string;
  type: string;
  secretPath: string;
  secretComment: string;
  skipMultilineEncoding: boolean;
  version: number;
  tags: SecretEntry["tags"];
}

interface ApiList {
  secrets: ApiSecret[];
  imports?: { secretPath: string; environment: string; secrets: ApiSecret[] }[];
}

const entryOf = (s: ApiSecret, importedFrom?: string): SecretEntry => ({
  id: s.id,
  key: s.secretKey,
  value: s.secretValue,
  type: s.type,
  secretPath: s.secretPath,
  comment: s.secretComment ?? "",
  skipMultilineEncoding: Boolean(s.skipMultilineEncoding),
  version: s.version,
  tags: s.tags ?? [],
  ...(importedFrom ? { importedFrom } : {}),
});

const scopeQuery = (scope: SecretScope) => ({ workspaceId: scope.projectId, environment: scope.environment, secretPath: scope.secretPath });

/** The query `run`, `export` and the watcher read secrets with: imports in, references expanded. */
export const injectedQuery = (scope: SecretScope) => ({ ...scopeQuery(scope), include_imports: true, expandSecretReferences: true });

/**
 * The secrets a process sees, by name: imported ones first (a later import over an earlier one,
 * as Infisical orders them), then the folder's own over any import. Personal overrides already
 * replace shared values in the server's answer.
 */
export function effectiveSecrets(list: ApiList): SecretEntry[] {
  const byKey = new Map<string, SecretEntry>();
  for (const imported of list.imports ?? []) {
    for (const s of imported.secrets) byKey.set(s.secretKey, entryOf(s, `${imported.environment}:${imported.secretPath}`));
  }
  for (const s of list.secrets) byKey.set(s.secretKey, entryOf(s));
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export async function listSecrets(target: ServerTarget, scope: SecretScope, options: { withImports: boolean }): Promise<SecretEntry[]> {
  const query = options.withImports ? injectedQuery(scope) : scopeQuery(scope);
  const answer = await call(target, "GET", "/api/v3/secrets/raw", { query });
  const list = expectStatus(answer, "listing secrets") as ApiList;
  return options.withImports ? effectiveSecrets(list) : list.secrets.map((s) => entryOf(s));
}

/** The list if it changed since `etag` (a 304 costs the server no decryption), else undefined. */
export async function listIfChanged(target: ServerTarget, scope: SecretScope, etag: string | undefined): Promise<{ etag?: string; secrets: SecretEntry[] } | undefined> {
  const answer = await call(target, "GET", "/api/v3/secrets/raw", { query: injectedQuery(scope), headers: etag ? { "if-none-match": etag } : {} });
  if (answer.status === 304) return undefined;
  const list = expectStatus(answer, "listing secrets") as ApiList;
  const next = answer.headers.etag;
  return { etag: typeof next === "string" ? next : undefined, secrets: effectiveSecrets(list) };
}

export async function getSecret(target: ServerTarget, scope: SecretScope, name: string): Promise<SecretEntry> {
  const answer = await call(target, "GET", `/api/v3/secrets/raw/${encodeURIComponent(name)}`, { query: { ...scopeQuery(scope), include_imports: true } });
  return entryOf((expectStatus(answer, `reading ${name}`) as { secret: ApiSecret }).secret);
}

/** Creates or updates every pair in one request (one transaction on the server). */
export async function setSecrets(target: ServerTarget, scope: SecretScope, pairs: readonly { key: string; value: string }[]): Promise<SecretEntry[]> {
  const answer = await call(target, "PATCH", "/api/v4/secrets/batch", {
    body: {
      projectId: scope.projectId,
      environment: scope.environment,
      secretPath: scope.secretPath,
      mode: "upsert",
      secrets: pairs.map((p) => ({ secretKey: p.key, secretValue: p.value })),
    },
  });
  return (expectStatus(answer, "setting secrets") as { secrets: ApiSecret[] }).secrets.map((s) => entryOf(s));
}

/** Deletes every named secret in one request; a missing one fails the whole request (exit 4). */
export async function deleteSecrets(target: ServerTarget, scope: SecretScope, names: readonly string[]): Promise<void> {
  const answer = await call(target, "DELETE", "/api/v4/secrets/batch", {
    body: { projectId: scope.projectId, environment: scope.environment, secretPath: scope.secretPath, secrets: names.map((secretKey) => ({ secretKey })) },
  });
  expectStatus(answer, "deleting secrets");
}
