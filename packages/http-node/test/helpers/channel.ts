import type { SseFrame } from "@strongroom/http-node";

/**
 * An event source tests drive by hand: `push` frames, `end` it, and observe whether the adapter
 * cancelled it. Iteration finishes as soon as it is cancelled, as core's streams do.
 */
export class Channel implements AsyncIterable<SseFrame> {
  private readonly queue: SseFrame[] = [];
  private wake?: () => void;
  private ended = false;
  readonly cancelled: Promise<void>;
  private markCancelled!: () => void;
  isCancelled = false;
  /** Set once iteration has fully stopped (the consumer's loop is gone). */
  finished = false;

  constructor() {
    this.cancelled = new Promise((resolve) => (this.markCancelled = resolve));
  }

  push(frame: SseFrame): void {
    this.queue.push(frame);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  cancel(): void {
    this.isCancelled = true;
    this.markCancelled();
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SseFrame> {
    try {
      for (;;) {
        const frame = this.queue.shift();
        if (frame) {
          yield frame;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.finished = true;
    }
  }

  /** Frames of `size` bytes as fast as the consumer takes them, until cancelled. */
  async *firehose(size: number): AsyncIterable<SseFrame> {
    const data = "x".repeat(size);
    let id = 0;
    try {
      while (!this.isCancelled) {
        yield { id: String(++id), event: "bulk", data };
        // Let the socket make progress between frames, as a real event source would.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.finished = true;
    }
  }
}
