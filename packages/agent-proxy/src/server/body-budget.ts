/**
 * Bodies buffered for placeholder substitution, counted across every session together: a per-request
 * cap alone lets many agents each hold a body one byte short of it. A reservation that would pass
 * the budget is refused (the request gets 503) and nothing of it is kept.
 */
export class BodyBudget {
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  tryReserve(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
