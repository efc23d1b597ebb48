import type { FindOptions, Table, Where } from "../storage/table.js";

/** A slice of a list, as the list operations take it (see query-fields.ts `pagination`). */
export interface PageRequest {
  offset: number;
  limit: number;
}

export interface Page<R> {
  rows: R[];
  /** Every row the filter matches, not only this page's. */
  totalCount: number;
}

/** One page of the rows `where` matches, in `orderBy` order, with the total. */
export async function findPage<R>(table: Table<R>, where: Where<R>, orderBy: NonNullable<FindOptions<R>["orderBy"]>, page: PageRequest): Promise<Page<R>> {
  const [rows, totalCount] = await Promise.all([table.find(where, { orderBy, offset: page.offset, limit: page.limit }), table.count(where)]);
  return { rows, totalCount };
}
