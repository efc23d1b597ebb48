const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Longest accepted duration: ten years of days. Anything longer is a typo, not a grant. */
export const MAX_DURATION_MS = 3650 * UNIT_MS.d;

const DURATION = /^([1-9][0-9]{0,9})([smhd])$/;

/** `30s`, `15m`, `1h`, `7d` → milliseconds; undefined for anything else, zero, or beyond MAX_DURATION_MS. */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== "string") return undefined;
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DURATION_MS ? ms : undefined;
}
