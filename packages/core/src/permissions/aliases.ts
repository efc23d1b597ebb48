import { ANY_SUBJECT } from "./catalogue.js";

/**
 * Actions a rule's action implies, per subject: `read` on secrets grants both halves of reading
 * a secret (DESIGN.md §4). Expanded when rules are compiled, like CASL's alias resolver, but
 * scoped to the subject so other subjects' `read` stays plain.
 */
export const ACTION_ALIASES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  secrets: { read: ["describeSecret", "readValue"] },
};

type AliasTable = ReadonlyMap<string, readonly string[]>;

// Maps, not object lookups: subjects and actions are caller strings such as "constructor".
const aliasTables = new Map<string, AliasTable>(
  Object.entries(ACTION_ALIASES).map(([subject, aliases]) => [subject, new Map(Object.entries(aliases))]),
);

// A rule on `all` covers secrets too, so it carries every subject's aliases.
const anySubjectAliases = new Map<string, readonly string[]>();
for (const table of aliasTables.values()) {
  for (const [action, implied] of table) {
    anySubjectAliases.set(action, [...new Set([...(anySubjectAliases.get(action) ?? []), ...implied])]);
  }
}

/**
 * Other names of subjects, accepted in role definitions and privileges: `cmek` is Infisical's name
 * for KMS keys, so roles copied from Infisical keep working. Rules are stored as written and read
 * under the canonical name.
 */
export const SUBJECT_ALIASES: Readonly<Record<string, string>> = { cmek: "kms" };

const subjectAliases = new Map(Object.entries(SUBJECT_ALIASES));

export const canonicalSubject = (subject: string): string => subjectAliases.get(subject) ?? subject;

/** The rule's actions plus every action they imply on `subject`, without duplicates. */
export function expandActions(subject: string, actions: readonly string[]): string[] {
  const aliases = subject === ANY_SUBJECT ? anySubjectAliases : aliasTables.get(subject);
  const expanded = new Set(actions);
  if (aliases) for (const action of actions) for (const implied of aliases.get(action) ?? []) expanded.add(implied);
  return [...expanded];
}
