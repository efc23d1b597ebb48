/** Which certificates an alert's filters select. Pure. */
import type { AlertFilter, AlertFilterOperator } from "./schemas.js";

export interface CertificateFacts {
  /** The slug of the profile it was issued from; null for discovered certificates. */
  profileName: string | null;
  commonName: string | null;
  subjectAltNames: string[];
  isCA: boolean;
}

/**
 * `*` matches any run of characters and `?` exactly one, over the whole text, case-insensitively.
 * Greedy matching with one backtrack point: linear in practice and never exponential, so a
 * pattern from a request cannot stall evaluation the way a regular expression could.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  const p = pattern.toLowerCase();
  const t = text.toLowerCase();
  let pi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === "?" || p[pi] === t[ti])) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === "*") {
      star = pi++;
      resume = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}

const COMPARISONS: Record<AlertFilterOperator, (candidate: string, value: string) => boolean> = {
  equals: (candidate, value) => candidate === value,
  contains: (candidate, value) => candidate.includes(value),
  starts_with: (candidate, value) => candidate.startsWith(value),
  ends_with: (candidate, value) => candidate.endsWith(value),
  matches: (candidate, value) => wildcardMatch(value, candidate),
};

function candidatesOf(field: AlertFilter["field"], facts: CertificateFacts): string[] {
  if (field === "profile_name") return facts.profileName === null ? [] : [facts.profileName];
  if (field === "common_name") return facts.commonName === null ? [] : [facts.commonName];
  return facts.subjectAltNames;
}

/**
 * Every filter must hold (AND); a multi-valued field (SANs) holds when any value does. Text
 * compares case-insensitively, as host names do. CA certificates are left out unless the last
 * `include_cas` filter says `true`.
 */
export function matchesFilters(filters: readonly AlertFilter[], facts: CertificateFacts): boolean {
  const includeCas = filters.filter((f) => f.field === "include_cas").at(-1)?.value === "true";
  if (facts.isCA && !includeCas) return false;
  return filters.every((filter) => {
    if (filter.field === "include_cas") return true;
    const value = filter.value.toLowerCase();
    const compare = COMPARISONS[filter.operator];
    return candidatesOf(filter.field, facts).some((candidate) => compare(candidate.toLowerCase(), value));
  });
}
