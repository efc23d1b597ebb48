import picomatch from "picomatch";
import { Automaton, type StepMeter } from "./glob-automaton.js";
import { UnsupportedRegexError, parseRegex, type RegexNode } from "./glob-regex.js";

/**
 * `dot: true` so that `/**` really matches every folder: without it a folder named `.hidden`
 * would escape both grants and denials written with globs. Slashes stay non-strict (picomatch's
 * default), so `/apps/*` also matches `/apps/x/`.
 */
export const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true };

export type ValuePredicate = (value: unknown) => boolean;

export type { StepMeter } from "./glob-automaton.js";

/** A compiled glob; `test` reproduces `picomatch(pattern, GLOB_OPTIONS)(value)` in linear time. */
export interface GlobMatcher {
  test(value: string, meter?: StepMeter): boolean;
}

/** Raised for a glob outside the supported syntax (see globSyntaxProblem). */
export class UnsupportedGlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedGlobError";
  }
}

const NOTHING: GlobMatcher = { test: () => false };

interface Literals {
  /** What every match starts with, and how many leading instructions consume it. */
  readonly prefix: string;
  readonly prefixItems: number;
  /** What every match ends with. */
  readonly suffix: string;
  /** The expression is the prefix alone. */
  readonly whole: boolean;
}

const literalChar = (item: RegexNode): string | undefined =>
  item.kind === "set" && item.ranges.length === 1 && item.ranges[0][0] === item.ranges[0][1] ? String.fromCharCode(item.ranges[0][0]) : undefined;

/** The literal text at both ends of an expression anchored by `^` (…`$`), for quick answers. */
function literals(node: RegexNode): Literals {
  const items = node.kind === "cat" ? node.items : [node];
  if (items[0]?.kind !== "start") return { prefix: "", prefixItems: 0, suffix: "", whole: false };
  let prefix = "";
  let i = 0;
  for (; i < items.length; i++) {
    if (items[i].kind === "start") continue;
    const ch = literalChar(items[i]);
    if (ch === undefined) break;
    prefix += ch;
  }
  const whole = i < items.length && items.slice(i).every((rest) => rest.kind === "end");
  let suffix = "";
  let j = items.length - 1;
  if (items[j]?.kind !== "end") return { prefix, prefixItems: i, suffix, whole };
  while (j >= i && items[j].kind === "end") j--;
  for (; j >= i; j--) {
    const ch = literalChar(items[j]);
    if (ch === undefined) break;
    suffix = ch + suffix;
  }
  return { prefix, prefixItems: i, suffix, whole };
}

/**
 * Compiles `pattern` once. picomatch translates the glob into a regular expression — so the
 * meaning is picomatch's by construction — and our automaton, not the backtracking RegExp
 * engine, runs it. Throws UnsupportedGlobError for patterns outside the supported syntax.
 */
export function compileGlob(pattern: string): GlobMatcher {
  let glob = compiled.get(pattern);
  if (glob !== undefined) {
    // Most recently used last, so the oldest entry is the one to drop.
    compiled.delete(pattern);
  } else {
    glob = compileGlobUncached(pattern);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  }
  compiled.set(pattern, glob);
  return glob;
}

// Rules are compiled per access load, so the same few patterns recur: their automata (and the
// states they have built) are shared. Each automaton's own cache is bounded (glob-automaton.ts).
const MAX_COMPILED = 256;
const compiled = new Map<string, GlobMatcher>();

/** compileGlob without the shared cache: a fresh automaton, as the complexity tests need. */
export function compileGlobUncached(pattern: string): GlobMatcher {
  const problem = globSyntaxProblem(pattern);
  if (problem !== undefined) throw new UnsupportedGlobError(problem);
  if (pattern === "") return NOTHING;
  let tree: RegexNode;
  let automaton: Automaton;
  try {
    tree = parseRegex(picomatch.makeRe(pattern, GLOB_OPTIONS).source);
    automaton = Automaton.compile(tree);
  } catch (error) {
    if (error instanceof UnsupportedRegexError) throw new UnsupportedGlobError(`unsupported glob: ${error.message}`);
    throw error;
  }
  const { prefix, prefixItems, suffix, whole } = literals(tree);
  // picomatch's own rules around the expression: empty input never matches, input equal to the
  // pattern always does.
  if (whole) return { test: (value) => value !== "" && (value === pattern || value === prefix) };
  if (prefixItems === 0) return { test: (value, meter) => value !== "" && (value === pattern || automaton.test(value, meter)) };
  return {
    test: (value, meter) => {
      if (value === "") return false;
      if (value === pattern) return true;
      if (!value.startsWith(prefix) || !value.endsWith(suffix)) return false;
      return automaton.testFrom(value, prefix.length, prefixItems, meter);
    },
  };
}

// An extglob (`@(`, `!(`, `+(`, `*(`, `?(`) or a regex group: any unescaped parenthesis.
function findParenthesis(pattern: string): number {
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") i++;
    else if (ch === "(" || ch === ")") return i;
  }
  return -1;
}

/**
 * The most wildcards (`*` runs, `?`, classes, brace groups and their alternatives) one glob may
 * hold. Matching costs O(pattern × input) whatever the pattern, but the constant grows with the
 * threads alive at once, that is with the wildcards: this keeps the worst accepted pattern
 * against a 1,024-character path within milliseconds (`npm run bench`, section globs). Real
 * globs hold a handful.
 */
export const MAX_GLOB_WILDCARDS = 32;

function countWildcards(pattern: string): number {
  let count = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") i++;
    else if (ch === "*") {
      count++;
      while (pattern[i + 1] === "*") i++;
    } else if (ch === "?" || ch === "[" || ch === "{" || ch === ",") count++;
  }
  return count;
}

/**
 * Why `pattern` is refused, or undefined when it is supported: picomatch's `*`, `**`, `?`,
 * classes, braces and escapes. Extglobs and regex groups (any unescaped parenthesis), a
 * leading `!` (negation), more than MAX_GLOB_WILDCARDS wildcards and anything the linear
 * automaton cannot run exactly are refused.
 */
export function globSyntaxProblem(pattern: string): string | undefined {
  if (pattern.startsWith("!")) return "negated globs ('!' at the start) are not supported";
  if (countWildcards(pattern) > MAX_GLOB_WILDCARDS) return `a glob may hold at most ${MAX_GLOB_WILDCARDS} wildcards (*, **, ?, classes, braces)`;
  const paren = findParenthesis(pattern);
  if (paren >= 0) {
    return `extglobs and groups are not supported ('${pattern[paren]}' at ${paren}); escape a literal parenthesis as '\\${pattern[paren]}'`;
  }
  return undefined;
}

/** Whether compileGlob accepts `pattern`; the validation schemas refuse the others (422). */
export function globProblem(pattern: string): string | undefined {
  try {
    compileGlob(pattern);
    return undefined;
  } catch (error) {
    if (error instanceof UnsupportedGlobError) return error.message;
    throw error;
  }
}

const matchesNothing: ValuePredicate = () => false;

/**
 * Compiles `pattern` once into a predicate with picomatch's matching semantics; non-strings
 * never match. An empty pattern matches nothing. A pattern outside the supported syntax (only
 * possible for rules stored before the syntax was narrowed) throws UnsupportedGlobError.
 */
export function globPredicate(pattern: string): ValuePredicate {
  if (pattern === "") return matchesNothing;
  const glob = compileGlob(pattern);
  return (value) => typeof value === "string" && glob.test(value);
}
