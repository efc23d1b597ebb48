/**
 * Globs over the supported syntax (`*`, `**`, `?`, classes, braces, escapes), each with values
 * spelled from its own pieces, so that comparisons with picomatch see matches as well as misses.
 */
import fc from "fast-check";

/** A piece of a glob and strings it could plausibly stand for. */
interface Piece {
  readonly glob: string;
  readonly spellings: readonly string[];
}

const piece = (glob: string, ...spellings: string[]): Piece => ({ glob, spellings });

const atoms: readonly Piece[] = [
  piece("a", "a"),
  piece("b", "b"),
  piece("1", "1"),
  piece(".", "."),
  piece("-", "-"),
  piece("_", "_"),
  piece("/", "/"),
  piece("*", "", "a", "ab", ".", ".a", ".."),
  piece("**", "", "a", "a/b", ".a", "a/.", "/"),
  piece("?", "a", ".", "/"),
  piece("[abc]", "a", "c", "[abc]", "d"),
  piece("[a-c]", "b", "-", "d"),
  piece("[!a]", "!", "a", "b"),
  piece("[^a]", "a", "b", "/"),
  piece("[[:digit:]]", "1", "a"),
  piece("[.]", ".", "a"),
  piece("{a,b}", "a", "b", "ab"),
  piece("{a,}", "a", ""),
  piece("{a/b,c}", "a/b", "c"),
  piece("{1..3}", "1", "2", "4"),
  piece("\\*", "*", "a"),
  piece("\\?", "?", "a"),
  piece("\\[", "["),
  piece("\\{", "{"),
  piece("[", "["),
  piece("]", "]"),
  piece("{", "{"),
  piece("}", "}"),
  piece(",", ","),
];

const pieceArb = fc.constantFrom(...atoms);

/** A pattern and strings spelled from its pieces (some match, some do not). */
export const globCaseArb = fc
  .array(pieceArb, { minLength: 1, maxLength: 8 })
  .chain((pieces) =>
    fc.record({
      pattern: fc.constant(pieces.map((p) => p.glob).join("")),
      values: fc.array(fc.tuple(...pieces.map((p) => fc.constantFrom(...p.spellings))).map((parts) => parts.join("")), {
        minLength: 1,
        maxLength: 8,
      }),
    }),
  );

export const supportedGlobArb = globCaseArb.map((c) => c.pattern);

/** Short strings over the characters the pieces use. */
export const valueArb = fc
  .array(fc.constantFrom("a", "b", "c", "1", ".", "/", "-", "!", "[", "]", "*", "?", "{", "}"), { maxLength: 8 })
  .map((chars) => chars.join(""));
