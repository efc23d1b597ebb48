/** How long a sink waits before it tries a failed delivery again. */
export interface BackoffOptions {
  /** The first wait, ms. Default 500. */
  baseMs?: number;
  /** The longest wait, ms. Default 60,000. */
  maxMs?: number;
}

/**
 * The wait before retry number `failures` (1 after the first failure): doubling from `baseMs`,
 * capped at `maxMs`, then "equal jitter" (between half and all of it) so that nodes whose
 * deliveries failed together do not hammer a recovering receiver in step. `random` is in [0, 1).
 */
export function retryDelayMs(failures: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseMs ?? 500;
  const max = options.maxMs ?? 60_000;
  // 2 ** 30 is far past any cap; clamping the exponent keeps the number finite.
  const ceiling = Math.min(max, base * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
