/**
 * Answers of ETag routes kept by their revision (core's `revision`: equal revisions mean equal
 * answers to that caller and input), so that a client repeating a big read without
 * If-None-Match is answered from memory once core has checked, audited and stamped the request.
 * The revision is read from storage on every request, so a kept answer is never stale; it names
 * one caller's input and access, so nobody else is ever given it. Bounded in bytes and in age:
 * the answers hold secret values, which stay in this process's memory only.
 */
export class RevisionCache {
  /** Insertion order is age: the oldest go first. */
  private readonly entries = new Map<string, { body: Buffer; at: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly ttlMs: number,
  ) {}

  get(revision: string, now = performance.now()): Buffer | undefined {
    const entry = this.entries.get(revision);
    if (entry === undefined) return undefined;
    if (now - entry.at < this.ttlMs) return entry.body;
    this.drop(revision, entry.body);
    return undefined;
  }

  set(revision: string, body: Buffer, now = performance.now()): void {
    // An answer bigger than a quarter of the budget would push out everything else for one caller.
    if (body.length * 4 > this.maxBytes) return;
    const old = this.entries.get(revision);
    if (old) this.drop(revision, old.body);
    for (const [key, entry] of this.entries) {
      if (this.bytes + body.length <= this.maxBytes && now - entry.at < this.ttlMs) break;
      this.drop(key, entry.body);
    }
    this.entries.set(revision, { body, at: now });
    this.bytes += body.length;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, body: Buffer): void {
    this.entries.delete(key);
    this.bytes -= body.length;
  }
}
