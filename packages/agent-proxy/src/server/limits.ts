/**
 * The proxy's bounds (DESIGN.md §11 "Agent proxy bounds"): every one has a default that holds for
 * production and can be set from the options, `--limit name=value` or `STRONGROOM_AGENT_PROXY_LIMITS`.
 * Tests set them small so that a bound is reached in milliseconds rather than minutes.
 */
export interface ProxyLimits {
  /** Request headers must be complete this long after the connection (or tunnel) starts waiting for them. */
  headerTimeoutMs: number;
  /** A request body may sit this long without a byte arriving. */
  bodyIdleTimeoutMs: number;
  /** Largest body buffered for placeholder substitution (413 beyond). */
  maxBufferedBodyBytes: number;
  /** Every buffered body across all sessions together (503 for the request that would pass it). */
  bufferedBodyBudgetBytes: number;
  /** Open CONNECT tunnels per session (429 beyond). */
  maxTunnelsPerSession: number;
  /** Requests per session in progress at once, pipelined ones included (429 beyond). */
  maxRequestsPerSession: number;
  /** New denied hosts per session and minute that still get their 403 inside an intercepted tunnel. */
  deniedHostsPerMinute: number;
  /** An upstream that sends nothing for this long is abandoned (504). */
  upstreamTimeoutMs: number;
  /** Least time between two polls that unknown session tokens trigger, across all sessions. */
  unknownTokenPollGapMs: number;
}

const MIB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<ProxyLimits> = Object.freeze({
  headerTimeoutMs: 30_000,
  bodyIdleTimeoutMs: 30_000,
  maxBufferedBodyBytes: 16 * MIB,
  bufferedBodyBudgetBytes: 64 * MIB,
  maxTunnelsPerSession: 64,
  maxRequestsPerSession: 256,
  deniedHostsPerMinute: 20,
  upstreamTimeoutMs: 60_000,
  unknownTokenPollGapMs: 1_000,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof ProxyLimits)[];

const isLimitName = (name: string): name is keyof ProxyLimits => (LIMIT_NAMES as string[]).includes(name);

/** Positive whole numbers only: a zero or negative bound would switch the protection off. */
export function resolveLimits(given: Partial<ProxyLimits> = {}): ProxyLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!isLimitName(name)) throw new Error(`unknown limit "${name}" (known: ${LIMIT_NAMES.join(", ")})`);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`limit ${name} must be a positive whole number, not ${value}`);
    limits[name] = value;
  }
  return limits;
}

/** `name=value` items separated by commas (the environment variable) or given one by one (`--limit`). */
export function parseLimits(items: readonly string[]): Partial<ProxyLimits> {
  const parsed: Partial<ProxyLimits> = {};
  for (const item of items.flatMap((text) => text.split(","))) {
    const trimmed = item.trim();
    if (!trimmed) continue;
    const match = /^([A-Za-z]+)\s*=\s*(\d+)$/.exec(trimmed);
    if (!match) throw new Error(`a limit is name=value with a whole number, not "${trimmed}"`);
    const name = match[1]!;
    if (!isLimitName(name)) throw new Error(`unknown limit "${name}" (known: ${LIMIT_NAMES.join(", ")})`);
    parsed[name] = Number(match[2]);
  }
  resolveLimits(parsed);
  return parsed;
}
