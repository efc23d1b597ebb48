import { describe, expect, it } from "vitest";
import { MAX_GLOB_WILDCARDS, compileGlobUncached, globProblem, type StepMeter } from "../../src/permissions/glob.js";

/**
 * The glob matcher's work, counted in automaton steps (never milliseconds), grows linearly in
 * pattern length × input length for patterns built to make a backtracking matcher explode, on
 * inputs that almost match (they pass the literal prefix and suffix checks, so the automaton
 * reads them). Each measurement uses a fresh automaton, so no cached state hides the work.
 */
interface Family {
  pattern(k: number): string;
  /** A near miss of about n characters. */
  input(n: number): string;
}

const FAMILIES: Record<string, Family> = {
  "stars and a missing letter (the issue's /*a*a*a…ac)": {
    pattern: (k) => `/${"*a".repeat(k)}c`,
    input: (n) => `/${"b".repeat(n - 3)}ac`,
  },
  "stars over a run of their own letter": {
    pattern: (k) => `/${"*a".repeat(k)}c`,
    input: (n) => `/${"a".repeat(n - 4)}/ac`,
  },
  globstars: {
    pattern: (k) => `${"**/".repeat(k)}c`,
    input: (n) => `${"/a".repeat((n - 3) / 2)}/.c`,
  },
  "braces and stars": {
    pattern: (k) => `/${"{a,aa}*".repeat(k)}c`,
    input: (n) => `/${"a".repeat(n - 3)}bc`.replace(/b/, "/"),
  },
  "question marks and stars": {
    pattern: (k) => `/${"?*".repeat(k)}c`,
    input: (n) => `/${"a".repeat(n - 3)}/c`,
  },
  "classes and stars": {
    pattern: (k) => `/${"[a-z]*".repeat(k)}c`,
    input: (n) => `/${"a".repeat(n - 3)}/c`,
  },
  "segments of stars": {
    pattern: (k) => `${"/*a*".repeat(k)}/c`,
    input: (n) => `/${"a".repeat(n - 5)}/b/c`,
  },
};

function steps(pattern: string, input: string): number {
  const meter: StepMeter = { steps: 0 };
  const glob = compileGlobUncached(pattern);
  expect(glob.test(input, meter), `${pattern} on ${input.slice(0, 40)}…`).toBe(false);
  return meter.steps;
}

describe("glob matching work", () => {
  // Steps per (pattern character × input character); measured well below this bound.
  const PER_CELL = 8;

  for (const [name, family] of Object.entries(FAMILIES)) {
    it(`${name}: bounded by pattern × input, and linear in each`, () => {
      for (const k of [2, 4, 8]) {
        const pattern = family.pattern(k);
        for (const n of [64, 128, 256, 512, 1024]) {
          const work = steps(pattern, family.input(n));
          expect(work, `${pattern} on ${n} characters`).toBeLessThanOrEqual(PER_CELL * pattern.length * n);
          // The automaton did read the input: the near miss got past the literal checks.
          expect(work, `${pattern} on ${n} characters`).toBeGreaterThanOrEqual(n / 2);
        }
        // Doubling the input at most doubles the work (plus building the first states).
        const [short, long] = [steps(pattern, family.input(512)), steps(pattern, family.input(1024))];
        expect(long, `${pattern}: ${short} then ${long} steps`).toBeLessThanOrEqual(2 * short + 64 * pattern.length);
      }
      // Doubling the pattern at most doubles the work (plus its own states).
      const [small, large] = [steps(family.pattern(4), family.input(1024)), steps(family.pattern(8), family.input(1024))];
      expect(large, `${small} then ${large} steps`).toBeLessThanOrEqual(2 * small + 64 * family.pattern(8).length);
    });
  }
});

describe("glob size", () => {
  it(`accepts up to ${MAX_GLOB_WILDCARDS} wildcards and refuses more`, () => {
    expect(globProblem(`/${"*a".repeat(MAX_GLOB_WILDCARDS)}`)).toBeUndefined();
    expect(globProblem(`/${"*a".repeat(MAX_GLOB_WILDCARDS + 1)}`)).toContain("at most");
    expect(globProblem(`/${"{a,b}".repeat(MAX_GLOB_WILDCARDS)}`)).toContain("at most");
    // Escaped characters are literals, not wildcards.
    expect(globProblem(`/${"\\*".repeat(MAX_GLOB_WILDCARDS + 1)}`)).toBeUndefined();
  });
});
