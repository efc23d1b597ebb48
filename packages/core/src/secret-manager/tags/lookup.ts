import { NotFoundError } from "../../kernel/errors.js";
import type { TagRow } from "../tables.js";

/** Lookups in a project's tags (`tagRepository.ofProject`), with the 404 that names every unknown one. */

export function assertTagIds(tags: ReadonlyMap<string, TagRow>, ids: Iterable<string>): void {
  const unknown = [...new Set(ids)].filter((id) => !tags.has(id));
  if (unknown.length) throw new NotFoundError(`Tag${unknown.length > 1 ? "s" : ""} not found: ${unknown.join(", ")}`);
}

/** The tags with these slugs, in their order. */
export function tagsBySlugs(tags: ReadonlyMap<string, TagRow>, slugs: readonly string[]): TagRow[] {
  const bySlug = new Map([...tags.values()].map((t) => [t.slug, t]));
  const unknown = slugs.filter((s) => !bySlug.has(s));
  if (unknown.length) throw new NotFoundError(`Tag${unknown.length > 1 ? "s" : ""} not found: ${unknown.join(", ")}`);
  return slugs.map((s) => bySlug.get(s) as TagRow);
}
