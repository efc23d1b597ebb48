/**
 * The listed order of a project's live environments. Positions count from 1 and stay contiguous:
 * a new environment goes last or at the position asked for, a moved one takes its new place, and
 * the others close up or make room, as in Infisical. A position past the end means the end.
 */

export interface Placed {
  readonly id: string;
  readonly position: number;
  readonly createdAt: string;
}

export type OrderChange =
  | { readonly kind: "insert"; readonly id: string; readonly at?: number }
  | { readonly kind: "move"; readonly id: string; readonly to: number }
  | { readonly kind: "remove"; readonly id: string };

/** Stored rows in their listed order: by position, ties (rows stored before positions were kept contiguous) by age, then id. */
export function listedOrder<T extends Placed>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.position - b.position || (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
}

const clamp = (position: number, max: number) => Math.min(Math.max(Math.trunc(position), 1), max);

/** The ids in their order after `change`; `ids` is the current order of the live environments. */
export function reorder(ids: readonly string[], change: OrderChange): string[] {
  const rest = ids.filter((id) => id !== change.id);
  if (change.kind === "remove") return rest;
  const at = change.kind === "insert" ? (change.at ?? rest.length + 1) : change.to;
  const index = clamp(at, rest.length + 1) - 1;
  return [...rest.slice(0, index), change.id, ...rest.slice(index)];
}

/** The position each id in `order` takes (1…n). */
export const positionsOf = (order: readonly string[]): Map<string, number> => new Map(order.map((id, i) => [id, i + 1]));

/**
 * Live environments as answers show them: in their listed order with positions 1…n, whatever
 * was stored (rows written before positions were kept contiguous counted from 0).
 */
export function rankedLive<T extends Placed & { deletedAt: string | null }>(rows: readonly T[]): T[] {
  return listedOrder(rows.filter((row) => !row.deletedAt)).map((row, i) => ({ ...row, position: i + 1 }));
}
