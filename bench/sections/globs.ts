/**
 * Caller-chosen globs: the worst pattern the validation accepts against a 1,024-character path
 * that almost matches it, with our linear matcher (a fresh automaton: compile and first match,
 * then matches against the states it has built) and with picomatch's regular expression on
 * V8's backtracking engine, run in a worker that is stopped at a time cap.
 */
import { Worker } from "node:worker_threads";
import picomatch from "picomatch";
import { GLOB_OPTIONS, MAX_GLOB_WILDCARDS, compileGlobUncached, globProblem } from "../../packages/core/src/permissions/glob.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const PATH_LENGTH = 1024;

/** Hostile families: k wildcards, and a near miss of PATH_LENGTH characters. */
const FAMILIES: { name: string; pattern: (k: number) => string; input: string }[] = [
  { name: "/*a*a…*ac", pattern: (k) => `/${"*a".repeat(k)}c`, input: `/${"b".repeat(PATH_LENGTH - 3)}ac` },
  { name: "/*a*a…*ac (run of a)", pattern: (k) => `/${"*a".repeat(k)}c`, input: `/${"a".repeat(PATH_LENGTH - 4)}/ac` },
  { name: "**/**/…c", pattern: (k) => `${"**/".repeat(k)}c`, input: `${"/a".repeat((PATH_LENGTH - 4) / 2)}/.c` },
  { name: "/?*?*…c", pattern: (k) => `/${"?*".repeat(k / 2)}c`, input: `/${"a".repeat(PATH_LENGTH - 3)}/c` },
  { name: "/[a-z]*…c", pattern: (k) => `/${"[a-z]*".repeat(k / 2)}c`, input: `/${"a".repeat(PATH_LENGTH - 3)}/c` },
  { name: "/{a,aa}*…c", pattern: (k) => `/${"{a,aa}*".repeat(k / 4)}c`, input: `/${"a".repeat(PATH_LENGTH - 3)}/c` },
];

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function ours(pattern: string, input: string, rounds: number): { coldMs: number; warmUs: number; steps: number } {
  const colds: number[] = [];
  let steps = 0;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const glob = compileGlobUncached(pattern);
    const meter = { steps: 0 };
    if (glob.test(input, meter)) throw new Error(`${pattern} matched its near miss`);
    colds.push(performance.now() - start);
    steps = meter.steps;
  }
  const glob = compileGlobUncached(pattern);
  glob.test(input);
  const warm: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    for (let j = 0; j < 100; j++) glob.test(input);
    warm.push(((performance.now() - start) * 1000) / 100);
  }
  return { coldMs: median(colds), warmUs: median(warm), steps };
}

/** picomatch's compiled RegExp on the same input, in a worker stopped after capMs. */
function backtracking(pattern: string, input: string, capMs: number): Promise<number | undefined> {
  const source = picomatch.makeRe(pattern, GLOB_OPTIONS).source;
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const re = new RegExp(workerData.source);
    const start = performance.now();
    re.test(workerData.input);
    parentPort.postMessage(performance.now() - start);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { source, input } });
    const timer = setTimeout(() => void worker.terminate().then(() => resolve(undefined)), capMs);
    worker.once("message", (ms: number) => {
      clearTimeout(timer);
      void worker.terminate().then(() => resolve(ms));
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function run({ quick, log }: BenchOptions): Promise<BenchRow[]> {
  const rounds = quick ? 5 : 21;
  const capMs = quick ? 500 : 5_000;
  // Compiled code first, so that the first family does not pay for the JIT.
  for (const family of FAMILIES) ours(family.pattern(4), family.input, 3);
  // The worst accepted pattern: each family with as many wildcards as accepted; the most steps.
  let worst: { name: string; pattern: string; input: string; coldMs: number; warmUs: number; steps: number } | undefined;
  for (const family of FAMILIES) {
    let k = MAX_GLOB_WILDCARDS;
    while (k > 1 && globProblem(family.pattern(k)) !== undefined) k--;
    const pattern = family.pattern(k);
    const result = ours(pattern, family.input, rounds);
    log(`${family.name}: ${pattern.length} characters, ${result.steps} steps, cold ${result.coldMs.toFixed(2)} ms, warm ${result.warmUs.toFixed(1)} µs`);
    if (!worst || result.steps > worst.steps) worst = { name: family.name, pattern, input: family.input, ...result };
  }
  if (!worst) throw new Error("no family");
  const theirs = await backtracking(worst.pattern, worst.input, capMs);
  const baseline = theirs === undefined ? `picomatch RegExp > ${capMs / 1000} s (stopped)` : `picomatch RegExp ${theirs.toFixed(1)} ms`;
  log(`worst: ${worst.name} (${worst.pattern}); ${baseline}`);
  const targetMs = 10;
  return [
    {
      section: `glob: worst accepted pattern (${worst.name}, ${MAX_GLOB_WILDCARDS} wildcards) vs ${PATH_LENGTH}-char path`,
      ours: `${worst.coldMs.toFixed(2)} ms new pattern, ${worst.warmUs.toFixed(1)} µs after`,
      baseline,
      ratio: theirs === undefined ? `> ${Math.round(capMs / worst.coldMs)}x` : `${(theirs / worst.coldMs).toFixed(1)}x`,
      target: `< ${targetMs} ms per match (event loop)`,
      met: worst.coldMs < targetMs,
    },
  ];
}

const section: BenchSection = { name: "globs", run };
export default section;
