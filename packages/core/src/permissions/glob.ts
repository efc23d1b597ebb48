import picomatch from "picomatch";

/**
 * `dot: true` so that `/**` really matches every folder: without it a folder named `.hidden`
 * would escape both grants and denials written with globs. Slashes stay non-strict (picomatch's
 * default), so `/apps/*` also matches `/apps/x/`.
 */
export const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true };

export type ValuePredicate = (value: unknown) => boolean;

const matchesNothing: ValuePredicate = () => false;

/**
 * Compiles `pattern` once into a predicate with picomatch's matching semantics. It reproduces
 * `picomatch(pattern)(value)` (empty input never matches, input equal to the pattern always does,
 * otherwise the compiled expression decides) without the result object picomatch allocates per
 * call; non-strings never match instead of throwing. An empty pattern matches nothing.
 */
export function globPredicate(pattern: string): ValuePredicate {
  if (pattern === "") return matchesNothing;
  const regex = picomatch.makeRe(pattern, GLOB_OPTIONS);
  return (value) => typeof value === "string" && value !== "" && (value === pattern || regex.test(value));
}
