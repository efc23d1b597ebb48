import { NotFoundError } from "../../kernel/errors.js";
import type { TagRow } from "../secrets/serialize.js";
import type { AppStorage as Storage } from "../../schema.js";

/** Every tag of a project by id: one read serves a whole list or batch. */
export async function projectTags(storage: Storage, projectId: string): Promise<Map<string, TagRow>> {
  const rows = await storage.tables.secretTags.find({ projectId });
  return new Map(rows.map((t) => [t.id, t]));
}

/** 404 naming every id that is not a tag of the project. */
export function assertTagIds(tags: ReadonlyMap<string, TagRow>, ids: Iterable<string>): void {
  const unknown = [...new Set(ids)].filter((id) => !tags.has(id));
  if (unknown.length) throw new NotFoundError(`Tag${unknown.length > 1 ? "s" : ""} not found: ${unknown.join(", ")}`);
}

/** The tags with these slugs; 404 naming every unknown slug. */
export function tagsBySlugs(tags: ReadonlyMap<string, TagRow>, slugs: readonly string[]): TagRow[] {
  const bySlug = new Map([...tags.values()].map((t) => [t.slug, t]));
  const unknown = slugs.filter((s) => !bySlug.has(s));
  if (unknown.length) throw new NotFoundError(`Tag${unknown.length > 1 ? "s" : ""} not found: ${unknown.join(", ")}`);
  return slugs.map((s) => bySlug.get(s) as TagRow);
}
