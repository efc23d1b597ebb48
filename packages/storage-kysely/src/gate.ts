/**
 * At most `limit` holders at a time; the others wait in arrival order. Transactions pass through
 * one so that, however many requests write at once, some pool connections stay free for reads: a
 * transaction waiting for another's row locks holds its connection the whole time.
 */
export class Gate {
  private holders = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`a gate needs a positive integer limit, got ${limit}`);
  }

  async through<T>(fn: () => Promise<T>): Promise<T> {
    if (this.holders >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.holders++;
    try {
      return await fn();
    } finally {
      // The place passes straight to the next in line, so the count never dips below the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.holders--;
    }
  }

  /** Holders now, and callers waiting for a place (for metrics and tests). */
  get load(): { holders: number; waiting: number } {
    return { holders: this.holders, waiting: this.waiting.length };
  }
}
