/**
 * Alternating rounds: every contender runs once per round, in a rotated order, so load from
 * other processes on the shared machine hits all of them alike. Figures are medians over rounds,
 * with the spread (min–max) beside them.
 */

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]! ) / 2;
};

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export const spread = (values: readonly number[]): Spread => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/** `runs[name]` is called once per round; returns each contender's samples in round order. */
export async function alternate<T>(rounds: number, runs: Record<string, () => Promise<T>>): Promise<Record<string, T[]>> {
  const names = Object.keys(runs);
  const samples: Record<string, T[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]!;
      samples[name]!.push(await runs[name]!());
    }
  }
  return samples;
}

/** "12.3k req/s (11.9k–12.8k)". */
export const formatRate = (s: Spread, unit: string): string => `${k(s.median)} ${unit} (${k(s.min)}–${k(s.max)})`;

const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : n >= 1000 ? `${(n / 1000).toFixed(2)}k` : n.toFixed(n >= 100 ? 0 : 1));
