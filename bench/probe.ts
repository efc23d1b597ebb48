/**
 * Runs bench/latency-probe.mjs in a child process (see there) and summarises what it measured.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const probeFile = fileURLToPath(new URL("./latency-probe.mjs", import.meta.url));

export interface ProbeSpec {
  url: string;
  method?: "GET" | "POST" | "PATCH";
  headers?: Record<string, string>;
  body?: string;
  /** Each request a `mode: upsert` batch of `size` secrets, values changed per request; `fresh`: new names each time. */
  batch?: { size: number; prefix: string; fresh?: boolean; fields: Record<string, unknown> };
  connections?: number;
  pauseMs?: number;
  seconds: number;
  maxRequests?: number;
}

export interface ProbeResult {
  latencies: number[];
  non2xx: number;
}

export function probe(spec: ProbeSpec): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [probeFile, JSON.stringify(spec)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      resolve(JSON.parse(stdout) as ProbeResult);
    });
  });
}

/** The q-quantile (0..1) of some values, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;

/** "min–max" of per-round figures: the spread a row reports beside its pooled figure. */
export const spread = (values: readonly number[]) => `${ms(Math.min(...values))}–${ms(Math.max(...values))}`;
