/**
 * Long CPU-bound loops (sealing thousands of secrets, checking each) hand the event loop back
 * every few milliseconds so unrelated requests keep flowing while they run. Never inside an open
 * transaction: every other write waits for it (SQLite writes one transaction at a time; on
 * PostgreSQL it holds row locks), so the work belongs before it, as a batch's rehearsal does.
 */

/** Called once per item: resolves at once, or — once the slice has run `budgetMs` — after other work had its turn. */
export type Pace = () => Promise<void> | undefined;

/** How long a slice of CPU-bound work holds the event loop before it yields. */
export const SLICE_MS = 4;

/** Hands the event loop to whatever waits, then resumes: between two pieces of work paced apart. */
export const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Never yields: what work inside a transaction (or small work) paces with. */
export const unpaced: Pace = () => undefined;

/** Calls between two looks at the clock: reading it costs about as much as a small item's work. */
const CALLS_PER_CHECK = 32;

/** A pace for one piece of work; `inTransaction` gives `unpaced`. */
export function pacer(inTransaction: boolean, budgetMs = SLICE_MS): Pace {
  if (inTransaction) return unpaced;
  let sliceStart = performance.now();
  let calls = 0;
  return () => {
    if (++calls % CALLS_PER_CHECK !== 0 || performance.now() - sliceStart < budgetMs) return undefined;
    return turn().then(() => {
      sliceStart = performance.now();
    });
  };
}

/** `items.map(fn)`, pacing after each item. */
export async function mapPaced<T, U>(items: readonly T[], pace: Pace, fn: (item: T, index: number) => U): Promise<U[]> {
  const out = new Array<U>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i], i);
    const wait = pace();
    if (wait) await wait;
  }
  return out;
}
