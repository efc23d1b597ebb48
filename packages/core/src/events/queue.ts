/**
 * A single-consumer FIFO with a hard bound. `push` refuses an item instead of growing past
 * `capacity`; `finish` lets the consumer take what is queued plus one last item, then ends;
 * `drop` ends at once. A consumer waiting in `take` is handed the next item directly, converted
 * by its own function into the value its promise settles with: one promise per item, which
 * matters when one event wakes thousands of consumers.
 */
export class BoundedQueue<T> {
  private items: T[] = [];
  private waiter: ((item: T | undefined) => void) | undefined;
  private ended = false;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** False when the queue has ended or is full. */
  push(item: T): boolean {
    if (this.ended) return false;
    if (this.waiter) {
      this.handOver(item);
      return true;
    }
    if (this.items.length >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  /** Ends the queue; `last` (beyond the bound) is taken after everything already queued. */
  finish(last?: T): void {
    if (this.ended) return;
    this.ended = true;
    if (last !== undefined) {
      if (this.waiter) this.handOver(last);
      else this.items.push(last);
    } else if (this.waiter) {
      this.handOver(undefined);
    }
  }

  /** Ends the queue and forgets what it holds. */
  drop(): void {
    this.items = [];
    this.ended = true;
    if (this.waiter) this.handOver(undefined);
  }

  /**
   * The next item (undefined once the queue has ended and is empty) passed through `convert`;
   * the promise rejects with whatever `convert` throws.
   */
  take<U = T | undefined>(convert: (item: T | undefined) => U = identity as (item: T | undefined) => U): Promise<U> {
    if (this.items.length > 0 || this.ended) return settle(convert, this.items.shift());
    if (this.waiter) return Promise.reject(new Error("BoundedQueue has a single consumer"));
    return new Promise((resolve, reject) => {
      this.waiter = (item) => {
        try {
          resolve(convert(item));
        } catch (thrown) {
          reject(thrown);
        }
      };
    });
  }

  private handOver(item: T | undefined): void {
    const resolve = this.waiter!;
    this.waiter = undefined;
    resolve(item);
  }
}

const identity = <T>(item: T): T => item;

function settle<T, U>(convert: (item: T | undefined) => U, item: T | undefined): Promise<U> {
  try {
    return Promise.resolve(convert(item));
  } catch (thrown) {
    return Promise.reject(thrown);
  }
}
