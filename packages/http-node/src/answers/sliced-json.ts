/**
 * JSON text of an answer without holding the event loop for long: a list of 10,000 secrets is
 * ~8 MB of JSON, 50–200 ms of `JSON.stringify` in one go, during which no other request is
 * served. Arrays of at least `SLICED_ARRAY_MIN` elements (at any depth within plain objects and
 * arrays) are stringified a few elements at a time, yielding to other work every `SLICE_MS`;
 * everything else goes through `JSON.stringify` whole. The text is exactly `JSON.stringify(value)`.
 */

/** Arrays shorter than this are stringified in one call: pacing them costs more than it saves. */
export const SLICED_ARRAY_MIN = 256;
/** How long one slice of serialization may hold the event loop. */
export const SLICE_MS = 4;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
};

/** Whether any array big enough to slice lies within `value` (through plain objects and arrays only). */
function holdsBigArray(value: unknown, depth = 0): boolean {
  if (depth > 4) return false;
  if (Array.isArray(value)) return value.length >= SLICED_ARRAY_MIN || value.some((v) => typeof v === "object" && v !== null && holdsBigArray(v, depth + 1));
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    const v = value[key];
    if (typeof v === "object" && v !== null && holdsBigArray(v, depth + 1)) return true;
  }
  return false;
}

/**
 * `JSON.stringify(value)` of a defined value: at once (no promise, no extra turn) when it holds no
 * big array, else a promise of the same text written in slices.
 */
export function answerText(value: unknown): string | Promise<string> {
  return holdsBigArray(value) ? slicedJson(value) : JSON.stringify(value);
}

/** `JSON.stringify(value)` of a defined value, written in slices. */
export async function slicedJson(value: unknown): Promise<string> {
  const parts: string[] = [];
  let sliceStart = performance.now();
  const pace = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await turn();
    sliceStart = performance.now();
  };

  async function write(v: unknown): Promise<void> {
    if (Array.isArray(v) && !(typeof (v as { toJSON?: unknown }).toJSON === "function")) {
      parts.push("[");
      for (let i = 0; i < v.length; i++) {
        if (i > 0) parts.push(",");
        await write(v[i]);
        await pace();
      }
      parts.push("]");
      return;
    }
    if (isPlainObject(v) && holdsBigArray(v)) {
      parts.push("{");
      let first = true;
      for (const key in v) {
        const member = v[key];
        // JSON.stringify leaves out members it cannot represent.
        if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
        parts.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
        first = false;
        await write(member);
      }
      parts.push("}");
      return;
    }
    // Only array elements get here unrepresentable (members were skipped): JSON.stringify writes null for them.
    parts.push(JSON.stringify(v) ?? "null");
  }

  await write(value);
  return parts.join("");
}
