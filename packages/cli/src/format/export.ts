import { stringify } from "yaml";
import type { SecretEntry } from "../client/secrets.js";

/**
 * `strongroom export` output, as the Infisical CLI writes it (so files and scripts made for
 * `infisical export` keep working): dotenv `KEY='value'`, dotenv-export `export KEY='value'`,
 * JSON an array of Infisical's secret objects, YAML a map of key to value.
 */
export const EXPORT_FORMATS = ["dotenv", "dotenv-export", "json", "yaml"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export function formatSecrets(format: ExportFormat, secrets: readonly SecretEntry[], projectId: string): string {
  switch (format) {
    case "dotenv":
      return secrets.map((s) => `${s.key}=${dotenvQuote(s.value)}\n`).join("");
    case "dotenv-export":
      return secrets.map((s) => `export ${s.key}=${shellQuote(s.value)}\n`).join("");
    case "json":
      return `${JSON.stringify(secrets.map((s) => infisicalJson(s, projectId)))}\n`;
    case "yaml":
      return secrets.length === 0 ? "{}\n" : stringify(Object.fromEntries(secrets.map((s) => [s.key, s.value])), { sortMapEntries: true });
  }
}

/**
 * Single quotes, as Infisical writes them (dotenv keeps their content literally, newlines
 * included). A value holding a single quote cannot sit inside them: double quotes then, which
 * dotenv also reads literally as long as the value holds no double quote.
 */
export function dotenvQuote(value: string): string {
  return value.includes("'") && !value.includes('"') ? `"${value}"` : `'${value}'`;
}

/** POSIX shell single quoting: `'` becomes `'\''`, so `eval`/`source` gets the value back exactly. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The Infisical CLI's `SingleEnvironmentVariable`, field for field. */
function infisicalJson(s: SecretEntry, projectId: string) {
  return {
    key: s.key,
    workspace: projectId,
    value: s.value,
    type: s.type,
    _id: s.id,
    secretPath: s.secretPath,
    tags: s.tags.map((t) => ({ id: t.id, name: t.name, slug: t.slug, color: t.color })),
    comment: s.comment,
    Etag: "",
    skipMultilineEncoding: s.skipMultilineEncoding,
  };
}
