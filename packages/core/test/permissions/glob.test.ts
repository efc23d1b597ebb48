import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { GLOB_OPTIONS, globPredicate } from "../../src/permissions/index.js";
import { globAnchor, globContains, globsDisjoint } from "../../src/permissions/glob-scope.js";
import { globsInFolderArb, pathArb, pathGlobArb } from "./support/arbitraries.js";

describe("globPredicate", () => {
  it.each([
    ["/", "/", true],
    ["/", "/apps", false],
    ["/**", "/", true],
    ["/**", "/apps/a/b", true],
    ["/**", "/.hidden/x", true],
    ["/apps/*", "/apps/a", true],
    ["/apps/*", "/apps/a/", true],
    ["/apps/*", "/apps/a/b", false],
    ["/apps/*", "/apps", false],
    ["/apps/**", "/apps", true],
    ["/apps/**", "/apps/a/b", true],
    ["/apps/**", "/apps/../x", false],
    ["prod-*", "prod-eu", true],
    ["/apps/[x]", "/apps/[x]", true],
    ["", "", false],
    ["", "/", false],
  ])("%j on %j is %s", (pattern, value, expected) => {
    expect(globPredicate(pattern)(value)).toBe(expected);
  });

  it("never matches non-strings", () => {
    const matches = globPredicate("**");
    for (const value of [undefined, null, 1, true, ["/a"], { path: "/a" }]) expect(matches(value)).toBe(false);
  });

  it("agrees with picomatch's own matcher", () => {
    fc.assert(
      fc.property(fc.oneof(pathGlobArb, fc.string({ minLength: 1, maxLength: 8 })), fc.oneof(pathArb, fc.string({ maxLength: 8 })), (pattern, value) => {
        expect(globPredicate(pattern)(value)).toBe(picomatch(pattern, GLOB_OPTIONS)(value));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("glob scope reasoning", () => {
  it.each([
    ["/apps/**", "/apps/*", true],
    ["/apps/**", "/apps/x", true],
    ["/apps/**", "/apps/x/**", true],
    ["/**", "/apps/*", true],
    ["/apps/*", "/apps/**", false],
    ["/apps/*", "/apps/x", false],
    ["/apps/**", "/apps/?", false],
    ["/apps/**", "/apps/x/../y", false],
    ["/apps/**", "/apps-old/x", false],
    ["/apps/**", "", true],
  ])("%j contains %j: %s", (outer, inner, expected) => {
    expect(globContains(outer, inner)).toBe(expected);
  });

  it.each([
    ["/apps/**", "/other/**", true],
    ["/apps/**", "/apps-old/*", true],
    ["/", "/apps/*", true],
    ["/apps/**", "/apps/x/*", false],
    ["/**", "/apps", false],
    ["/", "/**", false],
    ["/a?/**", "/b/**", false],
  ])("%j and %j disjoint: %s", (a, b, expected) => {
    expect(globsDisjoint(a, b)).toBe(expected);
  });

  // Each claim is checked in both orders of the generated pair, against paths inside the shared folder.
  const claims = (check: (a: string, b: string, paths: readonly string[]) => void) =>
    fc.assert(
      fc.property(globsInFolderArb, fc.array(pathArb, { maxLength: 5 }), ({ a, b, paths }, elsewhere) => {
        check(a, b, [...paths, ...elsewhere]);
        check(b, a, [...paths, ...elsewhere]);
      }),
      { numRuns: 20_000 },
    );

  it("containment claims hold for picomatch", () => {
    claims((outer, inner, paths) => {
      if (!globContains(outer, inner)) return;
      const [matchesOuter, matchesInner] = [globPredicate(outer), globPredicate(inner)];
      for (const path of paths) if (matchesInner(path)) expect(matchesOuter(path), path).toBe(true);
    });
  });

  it("anchors bound every match", () => {
    claims((pattern, _other, paths) => {
      const anchor = globAnchor(pattern);
      if (anchor === undefined) return;
      const matches = globPredicate(pattern);
      for (const path of paths) if (matches(path)) expect(path === anchor || path.startsWith(`${anchor}/`), path).toBe(true);
    });
  });

  it("disjointness claims hold for picomatch", () => {
    claims((a, b, paths) => {
      if (!globsDisjoint(a, b)) return;
      const [matchesA, matchesB] = [globPredicate(a), globPredicate(b)];
      for (const path of paths) expect(matchesA(path) && matchesB(path), path).toBe(false);
    });
  });
});
