import { z } from "zod";
import { mapPaced, pacer, unpaced, type Pace } from "./pace.js";

/**
 * Input validation that does not hold the event loop for a whole big batch. zod parses a
 * 5,000-item array in one synchronous call (6–50 ms), which every unrelated request then waits
 * for; here the items of a long top-level array are parsed one by one, paced, and the rest of the
 * input by a copy of the schema whose array takes the parsed items as they are.
 *
 * Answers exactly what `schema.safeParse` answers: the items go through the very same item
 * schema, and the derived schema keeps every check (the array's bounds, the object's refinements
 * and transform), which run on the same values as in one parse. Any failure parses the input
 * again in one call, so issues (paths, messages, order) are the one-call parse's own.
 */

/** Arrays shorter than this are parsed in one call: pacing costs more than it saves. */
export const SLICED_MIN_ITEMS = 256;

type Schema = z.ZodType;

/** How one schema's long arrays are parsed apart: its array keys, their item schemas, and the schema taking parsed items. */
interface Split {
  readonly items: ReadonlyMap<string, Schema>;
  readonly rest: Schema;
}

const splits = new WeakMap<Schema, Split | null>();

/**
 * The kernel's input validation: `schema.safeParse(input)` as it is (no allocation, no promise)
 * unless the input has a long array to pace through, and never paced inside a transaction.
 */
export function validateInput<S extends Schema>(schema: S, input: unknown, inTransaction: boolean): z.ZodSafeParseResult<z.output<S>> | Promise<z.ZodSafeParseResult<z.output<S>>> {
  const split = inTransaction ? null : splitOf(schema);
  return split && longArrays(split, input) ? parseSplit(schema, split, input as Record<string, unknown>, pacer(false)) : schema.safeParse(input);
}

/** `schema.safeParse(input)`, the items of long arrays parsed with `pace` between them. */
export async function parsePaced<S extends Schema>(schema: S, input: unknown, pace: Pace): Promise<z.ZodSafeParseResult<z.output<S>>> {
  const split = pace === unpaced ? null : splitOf(schema);
  return split && longArrays(split, input) ? parseSplit(schema, split, input as Record<string, unknown>, pace) : schema.safeParse(input);
}

function longArrays(split: Split, input: unknown): boolean {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  for (const key of split.items.keys()) {
    const value = (input as Record<string, unknown>)[key];
    if (Array.isArray(value) && value.length >= SLICED_MIN_ITEMS) return true;
  }
  return false;
}

async function parseSplit<S extends Schema>(schema: S, split: Split, record: Record<string, unknown>, pace: Pace): Promise<z.ZodSafeParseResult<z.output<S>>> {
  const parsed: Record<string, unknown> = { ...record };
  for (const [key, item] of split.items) {
    if (!Array.isArray(record[key])) continue;
    let failed = false;
    const values = await mapPaced(record[key] as unknown[], pace, (value) => {
      if (failed) return undefined;
      const result = item.safeParse(value);
      if (!result.success) failed = true;
      return result.data;
    });
    if (failed) return schema.safeParse(record);
    parsed[key] = values;
  }
  // A key whose value is no array (missing, or of another type) fails `rest` as it fails `schema`.
  const rest = split.rest.safeParse(parsed);
  return rest.success ? (rest as z.ZodSafeParseResult<z.output<S>>) : schema.safeParse(record);
}

/** The split of a schema built as `object(...)`, refined or not, optionally piped into a transform; null for any other shape. */
function splitOf(schema: Schema): Split | null {
  let split = splits.get(schema);
  if (split === undefined) splits.set(schema, (split = buildSplit(schema)));
  return split;
}

function buildSplit(schema: Schema): Split | null {
  const def = schema._zod.def as { type: string; in?: Schema; out?: Schema; shape?: Record<string, Schema> };
  if (def.type === "pipe") {
    const inner = buildSplit(def.in as Schema);
    return inner && { items: inner.items, rest: schema.clone({ ...def, in: inner.rest } as typeof schema._zod.def) };
  }
  if (def.type !== "object" || !def.shape) return null;
  const items = new Map<string, Schema>();
  const shape: Record<string, Schema> = { ...def.shape };
  for (const [key, field] of Object.entries(shape)) {
    const fieldDef = field._zod.def as { type: string; element?: Schema };
    if (fieldDef.type !== "array" || !fieldDef.element) continue;
    items.set(key, fieldDef.element);
    // Same bounds and checks; items arrive parsed already.
    shape[key] = field.clone({ ...fieldDef, element: z.unknown() } as typeof field._zod.def);
  }
  if (items.size === 0) return null;
  return { items, rest: schema.clone({ ...def, shape } as typeof schema._zod.def) };
}
