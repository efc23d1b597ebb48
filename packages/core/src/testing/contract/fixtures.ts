import type { UserRow } from "../../tenancy/tables.js";
import { users } from "../../tenancy/tables.js";
import type { StrongroomStorage as Storage } from "../../schema.js";
import { sampleRow } from "../sample-rows.js";

/** The storage under test, opened fresh (and emptied) for each test. */
export type StorageUnderTest = () => Storage;

/** A users row with distinct unique columns per seed; overrides win. */
export function user(seed: number, overrides: Partial<UserRow> = {}): UserRow {
  return { ...sampleRow(users, seed), email: `user${seed}@example.com`, username: `user${seed}`, ...overrides };
}

export const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
