import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { can, compileRules, grantWindow, rulesAt, rulesHeldThrough, type PermissionRule, type TimedRuleSource } from "../../src/permissions/index.js";

const INF = Number.POSITIVE_INFINITY;
const read = (environment?: string, inverted = false): PermissionRule => ({
  subject: "secrets",
  action: "read",
  ...(environment ? { conditions: { environment } } : {}),
  ...(inverted ? { inverted } : {}),
});
const source = (rules: PermissionRule[], start = -INF, end = INF): TimedRuleSource => ({ rules, start, end });
const allows = (rules: PermissionRule[], environment: string) => can(compileRules(rules), "read", "secrets", { environment });

describe("grantWindow", () => {
  it.each([
    ["a permanent grant", { isTemporary: false }, { start: -INF, end: INF }],
    ["a temporary grant", { isTemporary: true, temporaryAccessStartTime: "1970-01-01T00:00:01.000Z", temporaryAccessEndTime: "1970-01-01T00:00:02.000Z" }, { start: 1000, end: 2000 }],
    ["a temporary grant without an end: never held", { isTemporary: true, temporaryAccessStartTime: "1970-01-01T00:00:01.000Z" }, { start: INF, end: -INF }],
    ["an unreadable bound: never held", { isTemporary: true, temporaryAccessStartTime: "soon", temporaryAccessEndTime: "1970-01-01T00:00:02.000Z" }, { start: INF, end: -INF }],
  ])("%s", (_name, grant, window) => {
    expect(grantWindow(grant)).toEqual(window);
  });
});

describe("rulesHeldThrough", () => {
  // now = 100; a grant until 200 (temporary) or forever (permanent)
  it.each<[string, TimedRuleSource[], number, string, boolean]>([
    ["a permanent allow backs a permanent grant", [source([read()])], INF, "prod", true],
    ["a temporary allow does not back a permanent grant", [source([read()], 0, 500)], INF, "prod", false],
    ["a temporary allow backs a grant ending with it", [source([read()], 0, 200)], 200, "prod", true],
    ["a temporary allow backs a grant ending before it", [source([read()], 0, 500)], 200, "prod", true],
    ["a temporary allow does not back a grant ending after it", [source([read()], 0, 150)], 200, "prod", false],
    ["an allow not yet started backs nothing", [source([read()], 150, INF)], 200, "prod", false],
    ["an expired allow backs nothing", [source([read()], 0, 100)], 100, "prod", false],
    ["a permanent deny takes away", [source([read()]), source([read("prod", true)])], INF, "prod", false],
    ["a deny elsewhere leaves the allow", [source([read()]), source([read("prod", true)])], INF, "dev", true],
    ["a deny that starts later still takes away", [source([read()]), source([read("prod", true)], 150, 300)], INF, "prod", false],
    ["a deny that ends soon still takes away now", [source([read()]), source([read("prod", true)], 0, 120)], INF, "prod", false],
    ["a deny that starts after the grant ends does not", [source([read()]), source([read("prod", true)], 300, INF)], 200, "prod", true],
    ["a deny that ended does not", [source([read()]), source([read("prod", true)], 0, 50)], INF, "prod", true],
    ["a later allow overrides an earlier deny", [source([read("prod", true)]), source([read()])], INF, "prod", true],
    ["but not when that allow ends first", [source([read("prod", true)]), source([read()], 0, 150)], INF, "prod", false],
  ])("%s", (_name, sources, until, environment, allowed) => {
    expect(allows(rulesHeldThrough(sources, 100, until), environment)).toBe(allowed);
  });

  it("for a grant already over, is what is held now", () => {
    const sources = [source([read()], 0, 150), source([read("dev", true)], 200, 300)];
    expect(rulesHeldThrough(sources, 100, 50)).toEqual([read()]);
  });

  const ruleArb = fc.record({ environment: fc.constantFrom(undefined, "dev", "prod"), inverted: fc.boolean() }).map(({ environment, inverted }) => read(environment, inverted));
  const momentArb = fc.integer({ min: 0, max: 12 });
  const sourceArb = fc.oneof(
    fc.array(ruleArb, { maxLength: 3 }).map((rules) => source(rules)),
    fc.tuple(fc.array(ruleArb, { maxLength: 3 }), momentArb, momentArb).map(([rules, a, b]) => source(rules, Math.min(a, b), Math.max(a, b))),
  );

  it("is sound: what the held rules allow, the granter's active rules allow at every moment of the span", () => {
    let allowedSomewhere = 0;
    fc.assert(
      fc.property(fc.array(sourceArb, { maxLength: 5 }), momentArb, fc.oneof(momentArb, fc.constant(INF)), (sources, from, until) => {
        const held = rulesHeldThrough(sources, from, until);
        for (const environment of ["dev", "prod", "qa"]) {
          if (!allows(held, environment)) continue;
          allowedSomewhere++;
          // Past the last bound of the model nothing changes, so checking up to 13 covers "forever".
          for (let t = from; t < Math.min(until, 13) || t === from; t++) {
            expect(allows(rulesAt(sources, t), environment), JSON.stringify({ sources, from, until, t, environment })).toBe(true);
          }
        }
      }),
      { numRuns: 5_000 },
    );
    expect(allowedSomewhere).toBeGreaterThan(1_000);
  });

  it("gives a permanent granter's rules unchanged", () => {
    fc.assert(
      fc.property(fc.array(fc.array(ruleArb, { maxLength: 3 }), { maxLength: 4 }), momentArb, fc.oneof(momentArb, fc.constant(INF)), (lists, from, until) => {
        expect(rulesHeldThrough(lists.map((rules) => source(rules)), from, until)).toEqual(lists.flat());
      }),
    );
  });
});
