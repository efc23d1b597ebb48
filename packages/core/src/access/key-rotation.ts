import { keyTables, type KeyRow } from "../crypto/tables.js";
import { defineCache, type Context } from "../kernel/context.js";
import { tablesOf } from "../storage/table.js";

/**
 * A project's data-key rotation under way (`@strongroom/core/maintenance`), as this node knows it:
 * every area that seals under the project's data keys reads with both keys of a rotation until it
 * ends. Looked up once per project per `KEY_NOTICE_MS` at most.
 */
export type KeyRotation = KeyRow<"dataKeyRotations">;

/**
 * How late a node learns that a project's data keys changed: the rotation waits this long (plus a
 * margin) between its steps, so that no node writes under a key it has retired and every node can
 * read what the others wrote. Equal to the access bound (DESIGN.md §11).
 */
export const KEY_NOTICE_MS = 2_000;

const rotations = defineCache<{ rotation: KeyRotation | null }>({ name: "project-key-rotations", capacity: 10_000, ttlMs: KEY_NOTICE_MS });

export async function projectKeyRotation(ctx: Context, projectId: string): Promise<KeyRotation | undefined> {
  const cache = ctx.caches.get(rotations);
  const now = ctx.clock.now().getTime();
  const cached = cache.get(projectId, now);
  if (cached) return cached.rotation ?? undefined;
  const rotation = (await tablesOf(ctx.storage, keyTables).dataKeyRotations.get(projectId)) ?? null;
  cache.set(projectId, { rotation }, { now });
  return rotation ?? undefined;
}

/** The keys to read with: the current one first, then the rotation's other one, if any. */
export function readKeyIds(current: string, rotation: KeyRotation | undefined, pick: (r: KeyRotation) => [string, string]): string[] {
  return rotation ? [current, ...pick(rotation).filter((id) => id !== current)] : [current];
}

/** Forgets what this node knows of rotations, for a rotation run in this process. */
export function forgetKeyRotations(ctx: Context): void {
  ctx.caches.get(rotations).clear();
}
