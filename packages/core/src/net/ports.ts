/** The `ports` field of a discovery job's targetConfig. */
import { BadRequestError } from "../kernel/errors.js";

/** Every port costs one handshake per host, so the list is capped rather than the ranges. */
export const MAX_PORTS = 100;

const TOKEN = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/;

/** `"443,8443,9000-9002"` → `[443, 8443, 9000, 9001, 9002]`: sorted, deduplicated, 1–65535. */
export function parsePorts(spec: string): number[] {
  const ports = new Set<number>();
  for (const raw of spec.split(",")) {
    const token = raw.trim();
    const match = TOKEN.exec(token);
    if (!match) throw new BadRequestError(`Invalid port "${token}": use ports and ranges such as 443,8443,9000-9002`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (first < 1 || last > 65535 || first > last) throw new BadRequestError(`Invalid port "${token}": ports run from 1 to 65535, low to high`);
    if (last - first + 1 > MAX_PORTS) throw new BadRequestError(`Too many ports: at most ${MAX_PORTS}`);
    for (let port = first; port <= last; port++) ports.add(port);
    if (ports.size > MAX_PORTS) throw new BadRequestError(`Too many ports: at most ${MAX_PORTS}`);
  }
  return [...ports].sort((a, b) => a - b);
}
