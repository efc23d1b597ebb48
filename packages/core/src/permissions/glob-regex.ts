/**
 * A parser for the part of JavaScript's regular-expression syntax (without flags, non-unicode
 * mode) that picomatch emits for globs: alternation, groups, bounded lookaheads, quantifiers,
 * `.`, `^`, `$`, classes and escapes. Its tree is what the glob automaton (glob-automaton.ts)
 * runs; anything it does not understand is reported as unsupported rather than guessed, so a
 * glob either keeps picomatch's exact meaning or is refused.
 */

export class UnsupportedRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedRegexError";
  }
}

/** Inclusive UTF-16 code-unit ranges, sorted and disjoint. */
export type CharRanges = readonly (readonly [number, number])[];

export type RegexNode =
  | { readonly kind: "set"; readonly ranges: CharRanges }
  | { readonly kind: "cat"; readonly items: readonly RegexNode[] }
  | { readonly kind: "alt"; readonly options: readonly RegexNode[] }
  | { readonly kind: "repeat"; readonly min: number; readonly max: number; readonly body: RegexNode }
  | { readonly kind: "start" }
  | { readonly kind: "end" }
  | { readonly kind: "look"; readonly negated: boolean; readonly body: RegexNode };

const MAX_CODE_UNIT = 0xffff;
// Counted repetition is unrolled, so its counts stay small (picomatch emits at most {1,2}).
const MAX_COUNT = 64;
const COUNTED = /\{(\d+)(,(\d*))?\}/y;

export function normalizeRanges(ranges: Iterable<readonly [number, number]>): CharRanges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

export function complementRanges(ranges: CharRanges): CharRanges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_UNIT) out.push([next, MAX_CODE_UNIT]);
  return out;
}

const code = (ch: string): number => ch.charCodeAt(0);
const single = (c: number): CharRanges => [[c, c]];

const DIGIT: CharRanges = [[0x30, 0x39]];
const WORD: CharRanges = normalizeRanges([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);
// ECMAScript WhiteSpace and LineTerminator.
const SPACE: CharRanges = normalizeRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
// `.` without the `s` flag: anything but a line terminator.
const DOT: CharRanges = complementRanges(normalizeRanges([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]));

const CLASS_ESCAPES: Record<string, CharRanges> = {
  d: DIGIT,
  D: complementRanges(DIGIT),
  w: WORD,
  W: complementRanges(WORD),
  s: SPACE,
  S: complementRanges(SPACE),
};

const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

const isHex = (s: string): boolean => /^[0-9a-fA-F]+$/.test(s);

class Parser {
  private pos = 0;

  constructor(private readonly source: string) {}

  parse(): RegexNode {
    const node = this.alternation();
    if (this.pos < this.source.length) this.fail(`unexpected '${this.source[this.pos]}'`);
    return node;
  }

  private fail(reason: string): never {
    throw new UnsupportedRegexError(`${reason} at ${this.pos}`);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.pos + offset];
  }

  private alternation(): RegexNode {
    const options = [this.sequence()];
    while (this.peek() === "|") {
      this.pos++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { kind: "alt", options };
  }

  private sequence(): RegexNode {
    const items: RegexNode[] = [];
    while (this.pos < this.source.length && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.quantified(this.atom());
      // Nested concatenations flatten, so literal prefixes are visible from the top.
      if (atom.kind === "cat") items.push(...atom.items);
      else items.push(atom);
    }
    return items.length === 1 ? items[0] : { kind: "cat", items };
  }

  private quantified(atom: RegexNode): RegexNode {
    let node = atom;
    for (;;) {
      const ch = this.peek();
      let min: number;
      let max: number;
      if (ch === "*") [min, max] = [0, Infinity];
      else if (ch === "+") [min, max] = [1, Infinity];
      else if (ch === "?") [min, max] = [0, 1];
      else if (ch === "{") {
        COUNTED.lastIndex = this.pos;
        const counted = COUNTED.exec(this.source);
        // Not a count: a literal `{`, read as the next atom (Annex B).
        if (!counted) return node;
        min = Number(counted[1]);
        max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
        if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) this.fail("a repetition count this large");
        this.pos += counted[0].length - 1;
      } else return node;
      if (node.kind === "start" || node.kind === "end" || node.kind === "look") this.fail("a quantified assertion");
      this.pos++;
      // Laziness changes which match is found, never whether one is.
      if (this.peek() === "?") this.pos++;
      node = { kind: "repeat", min, max, body: node };
    }
  }

  private atom(): RegexNode {
    const ch = this.source[this.pos++];
    switch (ch) {
      case "^":
        return { kind: "start" };
      case "$":
        return { kind: "end" };
      case ".":
        return { kind: "set", ranges: DOT };
      case "[":
        return { kind: "set", ranges: this.characterClass() };
      case "\\":
        return this.atomEscape();
      case "(":
        return this.group();
      case "*":
      case "+":
      case "?":
        return this.fail(`nothing to repeat before '${ch}'`);
      case "{":
        COUNTED.lastIndex = this.pos - 1;
        if (COUNTED.test(this.source)) this.fail("nothing to repeat before '{'");
        return { kind: "set", ranges: single(code(ch)) };
      default:
        return { kind: "set", ranges: single(code(ch)) };
    }
  }

  private group(): RegexNode {
    let look: { negated: boolean } | undefined;
    if (this.peek() === "?") {
      const kind = this.peek(1);
      if (kind === ":") this.pos += 2;
      else if (kind === "=" || kind === "!") {
        look = { negated: kind === "!" };
        this.pos += 2;
      } else this.fail("a lookbehind or named group");
    }
    const body = this.alternation();
    if (this.peek() !== ")") this.fail("an unclosed group");
    this.pos++;
    return look ? { kind: "look", negated: look.negated, body } : body;
  }

  private atomEscape(): RegexNode {
    const ch = this.peek();
    if (ch === undefined) this.fail("a trailing backslash");
    if (ch === "b" || ch === "B") this.fail("a word-boundary assertion");
    if (ch >= "1" && ch <= "9") this.fail("a back-reference");
    const classEscape = CLASS_ESCAPES[ch];
    if (classEscape) {
      this.pos++;
      return { kind: "set", ranges: classEscape };
    }
    return { kind: "set", ranges: single(this.characterEscape()) };
  }

  /** One escaped code unit after `\` (the position is on the character after the backslash). */
  private characterEscape(): number {
    const ch = this.source[this.pos++];
    if (ch in CONTROL_ESCAPES) return CONTROL_ESCAPES[ch];
    if (ch === "0") {
      if (/[0-9]/.test(this.peek() ?? "")) this.fail("an octal escape");
      return 0;
    }
    if (ch === "x" || ch === "u") {
      const digits = this.source.slice(this.pos, this.pos + (ch === "x" ? 2 : 4));
      if (digits.length === (ch === "x" ? 2 : 4) && isHex(digits)) {
        this.pos += digits.length;
        return parseInt(digits, 16);
      }
      this.fail(`an incomplete \\${ch} escape`);
    }
    if (ch === "c") this.fail("a control escape");
    if (ch >= "1" && ch <= "9") this.fail("an octal escape");
    // Any other escaped character stands for itself (identity escape).
    return code(ch);
  }

  private characterClass(): CharRanges {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    const ranges: (readonly [number, number])[] = [];
    // One class atom: a code unit, or a set for \d \w \s and their negations.
    const classAtom = (): number | CharRanges => {
      const ch = this.source[this.pos++];
      if (ch === undefined) this.fail("an unclosed class");
      if (ch !== "\\") return code(ch);
      const escaped = this.peek();
      if (escaped === undefined) this.fail("a trailing backslash");
      const set = CLASS_ESCAPES[escaped];
      if (set) {
        this.pos++;
        return set;
      }
      if (escaped === "b") {
        this.pos++;
        return 0x08;
      }
      if (escaped === "-") {
        this.pos++;
        return code("-");
      }
      return this.characterEscape();
    };
    while (this.peek() !== "]") {
      if (this.pos >= this.source.length) this.fail("an unclosed class");
      const first = classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const last = classAtom();
        // With a class escape at either end the dash is literal (Annex B).
        if (typeof first !== "number" || typeof last !== "number") {
          for (const part of [first, code("-"), last]) {
            if (typeof part === "number") ranges.push([part, part]);
            else ranges.push(...part);
          }
          continue;
        }
        if (first > last) this.fail("an out-of-order range");
        ranges.push([first, last]);
        continue;
      }
      if (typeof first === "number") ranges.push([first, first]);
      else ranges.push(...first);
    }
    this.pos++;
    const normalized = normalizeRanges(ranges);
    return negated ? complementRanges(normalized) : normalized;
  }
}

/** Parses `source` (a RegExp's source, no flags) into a tree, or throws UnsupportedRegexError. */
export function parseRegex(source: string): RegexNode {
  return new Parser(source).parse();
}

/** The shortest and longest strings `node` can consume (Infinity when unbounded). */
export function lengthBounds(node: RegexNode): { min: number; max: number } {
  switch (node.kind) {
    case "set":
      return { min: 1, max: 1 };
    case "start":
    case "end":
    case "look":
      return { min: 0, max: 0 };
    case "cat":
      return node.items.map(lengthBounds).reduce((a, b) => ({ min: a.min + b.min, max: a.max + b.max }), { min: 0, max: 0 });
    case "alt": {
      const bounds = node.options.map(lengthBounds);
      return { min: Math.min(...bounds.map((b) => b.min)), max: Math.max(...bounds.map((b) => b.max)) };
    }
    case "repeat": {
      const body = lengthBounds(node.body);
      return { min: body.min * node.min, max: body.max === 0 || node.max === 0 ? 0 : body.max * node.max };
    }
  }
}
