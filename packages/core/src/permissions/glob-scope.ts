/**
 * Conservative reasoning about which strings a `$glob` pattern can match, for the permission
 * boundary: "yes" answers must hold for picomatch with GLOB_OPTIONS, "no" is always allowed.
 * Only a family of folder patterns is understood: a literal path, optionally followed by `/`
 * and wildcards that cannot produce `.`-segments (picomatch never lets `**` match `.` or `..`,
 * while `?` can stand for a dot).
 */

const SEGMENT = "[A-Za-z0-9_-][A-Za-z0-9_.-]*";
// A literal folder path, or "" (the base of `/**`).
const LITERAL_PATH = new RegExp(`^(?:/${SEGMENT})*$`);
const WILDCARD_TAIL = /^[A-Za-z0-9_\-/*]*$/;

/**
 * A literal path `A` such that every string `pattern` matches is `A` itself or lies below `A/`,
 * or undefined when the pattern is outside the understood family.
 */
export function globAnchor(pattern: string): string | undefined {
  if (pattern === "/") return pattern;
  if (pattern !== "" && LITERAL_PATH.test(pattern)) return pattern;
  const star = pattern.indexOf("*");
  if (star < 0) return undefined;
  const slash = pattern.lastIndexOf("/", star);
  if (slash < 0) return undefined;
  const base = pattern.slice(0, slash);
  return LITERAL_PATH.test(base) && WILDCARD_TAIL.test(pattern.slice(slash + 1)) ? base : undefined;
}

/** Whether every string `inner` matches is matched by `outer` too (false when unsure). */
export function globContains(outer: string, inner: string): boolean {
  // An empty pattern matches nothing, so it is inside everything.
  if (inner === "" || inner === outer) return true;
  if (!outer.endsWith("/**")) return false;
  const base = outer.slice(0, -3);
  return LITERAL_PATH.test(base) && inner.startsWith(`${base}/`) && WILDCARD_TAIL.test(inner.slice(base.length + 1));
}

/** Whether no single string can match both patterns (false when unsure). */
export function globsDisjoint(a: string, b: string): boolean {
  if (a === "" || b === "") return true;
  const anchorA = globAnchor(a);
  const anchorB = globAnchor(b);
  if (anchorA === undefined || anchorB === undefined) return false;
  return !(anchorA === anchorB || anchorA.startsWith(`${anchorB}/`) || anchorB.startsWith(`${anchorA}/`));
}
