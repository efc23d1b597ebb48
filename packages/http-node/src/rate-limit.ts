export interface RateLimitOptions {
  /** Sustained rate each client may keep up. */
  requestsPerSecond: number;
  /** Requests a client may make at once before the rate applies. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets idle long enough to be full again carry no information; beyond this many, drop them. */
const SWEEP_THRESHOLD = 10_000;

/**
 * Token buckets keyed by client (an IP, an actor). `take` answers 0 when the request may go ahead,
 * else the seconds until a token will be available.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(options.requestsPerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError("rate limit needs requestsPerSecond > 0 and burst >= 1");
    }
  }

  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, updatedAt: now };
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.options.requestsPerSecond);
    bucket.updatedAt = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= SWEEP_THRESHOLD) this.sweep(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / this.options.requestsPerSecond;
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    const refillMs = (this.options.burst / this.options.requestsPerSecond) * 1000;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= refillMs) this.buckets.delete(key);
    }
  }
}

/** `<rps>:<burst>` (e.g. `20:40`) as given in `STRONGROOM_RATE_LIMIT`. */
export function parseRateLimit(text: string): RateLimitOptions {
  const match = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+)\s*$/.exec(text);
  if (!match) throw new Error(`STRONGROOM_RATE_LIMIT must look like <requestsPerSecond>:<burst>, got "${text}"`);
  const options = { requestsPerSecond: Number(match[1]), burst: Number(match[2]) };
  if (!(options.requestsPerSecond > 0) || options.burst < 1) {
    throw new Error("STRONGROOM_RATE_LIMIT needs requestsPerSecond > 0 and burst >= 1");
  }
  return options;
}

/** Anonymous auth routes, per client address (DESIGN.md §11): 20 requests a minute, 10 at once. */
export const DEFAULT_AUTH_RATE_LIMIT: RateLimitOptions = { requestsPerSecond: 20 / 60, burst: 10 };

/**
 * `STRONGROOM_AUTH_RATE_LIMIT`: `<requests per minute>:<burst>` (e.g. `20:10`), `off`, or unset
 * for the default.
 */
export function parseAuthRateLimit(text: string | undefined): RateLimitOptions | false {
  const value = text?.trim() ?? "";
  if (value === "") return DEFAULT_AUTH_RATE_LIMIT;
  if (value.toLowerCase() === "off") return false;
  const match = /^(\d+(?:\.\d+)?)\s*:\s*(\d+)$/.exec(value);
  const perMinute = match ? Number(match[1]) : NaN;
  const burst = match ? Number(match[2]) : NaN;
  if (!(perMinute > 0) || !(burst >= 1)) {
    throw new Error(`STRONGROOM_AUTH_RATE_LIMIT must look like <requestsPerMinute>:<burst> (e.g. 20:10) or off, got "${text}"`);
  }
  return { requestsPerSecond: perMinute / 60, burst };
}
