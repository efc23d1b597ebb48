/** How long encoding rows may hold the event loop before other work gets a turn. */
const SLICE_MS = 4;
/** Items between two looks at the clock. */
const ITEMS_PER_CHECK = 64;

/**
 * `items.forEach(fn)`, handing the event loop back whenever it has run for a few milliseconds:
 * encoding the rows of a 5,000-secret batch takes tens of them. Also inside a transaction, whose
 * statements run elsewhere (the database server, SQLite's writer thread): other requests' reads
 * go on meanwhile, and their writes wait for the transaction either way.
 */
export async function forEachPaced<T>(items: readonly T[], fn: (item: T, index: number) => void): Promise<void> {
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    fn(items[i], i);
    if ((i + 1) % ITEMS_PER_CHECK === 0 && performance.now() - sliceStart >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** `items.map(fn)` as `forEachPaced` runs it; a short list is mapped at once, with no await. */
export function mapPaced<T, U>(items: readonly T[], fn: (item: T) => U): U[] | Promise<U[]> {
  if (items.length <= ITEMS_PER_CHECK) return items.map(fn);
  const out = new Array<U>(items.length);
  return forEachPaced(items, (item, i) => {
    out[i] = fn(item);
  }).then(() => out);
}
