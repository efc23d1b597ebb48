/** One row of the final `npm run bench` table. Every baseline is measured in the same run as `ours`. */
export interface BenchRow {
  section: string;
  /** Our figure, already formatted with its unit (e.g. "1.2M checks/s"). */
  ours: string;
  baseline: string;
  /** ours / baseline (or baseline / ours for "lower is better" rows), formatted, e.g. "4.10x". */
  ratio: string;
  /** The target in words, e.g. ">= 3x CASL". */
  target: string;
  met: boolean;
}

export interface BenchOptions {
  /** BENCH_QUICK=1: a short run for CI (the whole command under 60 s). */
  quick: boolean;
  /** Prints progress lines while the section runs. */
  log: (line: string) => void;
}

/** Each file in bench/sections default-exports one of these. */
export interface BenchSection {
  name: string;
  run(options: BenchOptions): Promise<BenchRow[]>;
}
