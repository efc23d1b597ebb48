const DAY_MS = 86_400_000;

/** When a key rotating every `days` rotates next after `from`; null when it does not rotate on a schedule. */
export function nextRotationAt(from: Date, days: number | null | undefined): string | null {
  return days ? new Date(from.getTime() + days * DAY_MS).toISOString() : null;
}
