import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { GLOB_OPTIONS, can, compileRules, globPredicate, permissionRuleSchema } from "../../src/permissions/index.js";
import { UnsupportedGlobError, compileGlob, globProblem } from "../../src/permissions/glob.js";
import { globAnchor, globContains, globsDisjoint } from "../../src/permissions/glob-scope.js";
import { globsInFolderArb, pathArb, pathGlobArb } from "./support/arbitraries.js";
import { globCaseArb, supportedGlobArb, valueArb } from "./support/glob-arbitraries.js";

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
        fc.pre(globProblem(pattern) === undefined);
        expect(globPredicate(pattern)(value)).toBe(picomatch(pattern, GLOB_OPTIONS)(value));
      }),
      { numRuns: 5_000 },
    );
  });

  it("agrees with picomatch on the supported syntax: *, **, ?, classes, braces, escapes", () => {
    fc.assert(
      fc.property(supportedGlobArb, fc.array(valueArb, { minLength: 1, maxLength: 10 }), (pattern, values) => {
        expect(globProblem(pattern), pattern).toBeUndefined();
        const ours = globPredicate(pattern);
        const theirs = picomatch(pattern, GLOB_OPTIONS);
        for (const value of values) expect(ours(value), `${pattern} on ${value}`).toBe(theirs(value));
      }),
      { numRuns: 4_000 },
    );
  });

  it("agrees with picomatch on the values the pattern is built to match", () => {
    // Random values rarely match long patterns; values spelled from the pattern's own pieces do.
    let matched = 0;
    fc.assert(
      fc.property(globCaseArb, ({ pattern, values }) => {
        const ours = globPredicate(pattern);
        const theirs = picomatch(pattern, GLOB_OPTIONS);
        for (const value of values) {
          expect(ours(value), `${pattern} on ${value}`).toBe(theirs(value));
          if (theirs(value)) matched++;
        }
      }),
      { numRuns: 4_000 },
    );
    expect(matched).toBeGreaterThan(2_000);
  });
});

describe("glob syntax", () => {
  it.each([
    ["/apps/@(a|b)", "extglobs"],
    ["/apps/!(secret)", "extglobs"],
    ["/apps/+(a)", "extglobs"],
    ["/apps/*(a)", "extglobs"],
    ["/apps/?(a)", "extglobs"],
    ["/apps/(a|b)", "extglobs"],
    ["/apps/a)", "extglobs"],
    ["!/apps/**", "negated"],
  ])("refuses %j (%s)", (pattern, reason) => {
    expect(globProblem(pattern)).toContain(reason);
    expect(() => compileGlob(pattern)).toThrow(UnsupportedGlobError);
  });

  it.each(["/", "/**", "/apps/*", "/apps/**/x", "DB_*", "*_KEY", "/a?c", "/[abc]/*", "/[!a]/*", "/{a,b}/**", "/{1..3}", "/a\\(b\\)", "[[:alpha:]]*", ""])(
    "accepts %j",
    (pattern) => {
      expect(globProblem(pattern)).toBeUndefined();
    },
  );
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

describe("rules stored before extglobs were refused", () => {
  // Such rules can only come from a database written by an older version: the schemas refuse them now.
  const object = { environment: "prod", secretPath: "/apps/a", secretName: "DB_URL" };

  it("grant nothing through the unsupported glob", () => {
    const rules = compileRules([{ subject: "secrets", action: "read", conditions: { secretPath: { $glob: "/apps/@(a|b)" } } }]);
    expect(can(rules, "read", "secrets", object)).toBe(false);
  });

  it("deny as if the unsupported glob matched everything", () => {
    const rules = compileRules([
      { subject: "secrets", action: "read" },
      { subject: "secrets", action: "read", inverted: true, conditions: { environment: "prod", secretPath: { $glob: "/other/+(x)" } } },
    ]);
    expect(can(rules, "read", "secrets", object)).toBe(false);
    expect(can(rules, "read", "secrets", { ...object, environment: "dev" })).toBe(true);
  });

  it("are refused by the rule schema", () => {
    const parsed = permissionRuleSchema.safeParse({ subject: "secrets", action: "read", conditions: { secretPath: { $glob: "/apps/!(x)" } } });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("extglobs");
  });
});
