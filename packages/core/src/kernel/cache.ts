/**
 * Makes room in a map used as a bounded cache (insertion order = age): once it holds `capacity`
 * entries, drops the oldest eighth in one pass. Dropping one entry per insertion would look for
 * the oldest live entry past every slot deleted before it, which grows slower with each eviction.
 */
export function makeRoom<K, V>(map: Map<K, V>, capacity: number): void {
  if (map.size < capacity) return;
  let drop = Math.max(1, capacity >> 3);
  for (const key of map.keys()) {
    map.delete(key);
    if (--drop === 0) break;
  }
}
