import { z } from "zod";

/**
 * Input pieces shared by the certificate manager's list operations. Query strings arrive as text,
 * so integers accept their JSON form and their decimal spelling; bounds apply to both.
 */
export function queryInteger(min: number, max: number) {
  const bounded = z.int().min(min).max(max);
  return z.union([bounded, z.string().regex(/^-?\d{1,10}$/, "Expected an integer").transform(Number).pipe(bounded)]);
}

export const projectIdField = z.string().min(1).max(255);
export const recordId = z.string().min(1).max(255);
/** An id the server minted (a UUID): anything else is a malformed request (422), not an unknown record. */
export const uuidRecordId = z.uuid("must be a UUID");

/** `offset` ≥ 0 (default 0) and `limit` 1–100 (default 25), as DESIGN.md §8 gives for installations. */
export const pagination = {
  offset: queryInteger(0, 1_000_000_000).default(0),
  limit: queryInteger(1, 100).default(25),
};

/** A case-insensitive substring; blank means no filter. */
export const searchField = z.string().max(255).optional();

export const blankToUndefined = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);
