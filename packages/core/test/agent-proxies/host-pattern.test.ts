import { describe, expect, it } from "vitest";
import { BadRequestError } from "../../src/kernel/errors.js";
import { hostPatternClashes } from "../../src/agent-vault/bundles/services.js";
import {
  compileHostPatterns,
  findBestMatch,
  matchHostPattern,
  normalizeHost,
  hostPatternField,
  parseHostPatterns,
  tidyHostPatterns,
  urlPartProblem,
  type HostPattern,
} from "../../src/entries/agent.js";

const one = (text: string): HostPattern => {
  const [pattern, ...rest] = parseHostPatterns(text);
  expect(rest).toEqual([]);
  return pattern!;
};

describe("parseHostPatterns", () => {
  it.each([
    ["api.example.com", { wildcard: false, host: "api.example.com", port: null }],
    ["API.Example.COM.", { wildcard: false, host: "api.example.com", port: null }],
    ["*.example.com", { wildcard: true, host: "example.com", port: null }],
    ["*.Example.com.:8443", { wildcard: true, host: "example.com", port: 8443 }],
    ["api.example.com:1", { wildcard: false, host: "api.example.com", port: 1 }],
    ["api.example.com:65535", { wildcard: false, host: "api.example.com", port: 65535 }],
    ["10.0.0.1", { wildcard: false, host: "10.0.0.1", port: null }],
    ["10.0.0.1:5432", { wildcard: false, host: "10.0.0.1", port: 5432 }],
    ["[::1]", { wildcard: false, host: "::1", port: null }],
    ["[::1]:8443", { wildcard: false, host: "::1", port: 8443 }],
    ["[2001:DB8:0:0:0:0:0:0001]:443", { wildcard: false, host: "2001:db8::1", port: 443 }],
    ["localhost", { wildcard: false, host: "localhost", port: null }],
    ["my_service.internal", { wildcard: false, host: "my_service.internal", port: null }],
    ["bücher.example", { wildcard: false, host: "xn--bcher-kva.example", port: null }],
  ])("parses %s", (text, expected) => {
    expect(one(text)).toMatchObject({ text, ...expected });
  });

  it("parses a list, trimming spaces around items and keeping order", () => {
    const patterns = parseHostPatterns(" a.example.com , *.b.example.com:8080,[::1]");
    expect(patterns.map((p) => [p.host, p.wildcard, p.port])).toEqual([
      ["a.example.com", false, null],
      ["b.example.com", true, 8080],
      ["::1", false, null],
    ]);
  });

  it.each([
    ["*", /bare \*/],
    ["*:443", /bare \*/],
    ["http://x", /scheme/],
    ["https://api.example.com", /scheme/],
    ["x/y", /path/],
    ["api.example.com/v1", /path/],
    ["user@example.com", /user info/],
    ["example.com?x", /query/],
    ["*.*.x", /leftmost label/],
    ["a.*.b", /leftmost label/],
    ["*example.com", /leftmost label/],
    ["api.*", /leftmost label/],
    ["*.", /empty host/],
    ["*.10.0.0.1", /IP address/],
    ["", /empty item/],
    ["a.com,,b.com", /item 2.*empty item/],
    ["a.com,", /item 2.*empty item/],
    ["a..com", /empty label/],
    ["-a.com", /invalid label/],
    ["a b.com", /whitespace/],
    ["api.example.com:0", /port/],
    ["api.example.com:65536", /port/],
    ["api.example.com:", /port/],
    ["api.example.com:http", /port/],
    ["api.example.com:-1", /port/],
    ["api.example.com:80:80", /brackets/],
    ["::1", /brackets/],
    ["[::1", /end with \]/],
    ["[::1]x", /after the IPv6/],
    ["[::g]", /IPv6/],
    ["[fe80::1%eth0]", /IPv6/],
    ["256.1.1.1", /IPv4/],
    ["1.2.3", /IPv4/],
    ["0x7f.0.0.1", /IPv4/],
    ["01.2.3.4", /IPv4/],
    ["a".repeat(64) + ".com", /invalid label/],
  ])("rejects %j", (text, message) => {
    let error: unknown;
    try {
      parseHostPatterns(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toMatch(message);
  });

  // DESIGN.md §11: a wildcard over a public suffix of the list's ICANN section is refused.
  it.each(["*.com", "*.COM.", "*.com:443", "*.co.uk", "*.uk", "*.k12.ak.us", "*.foo.ck", "*.xn--p1ai", "*.рф", "*.onion", "a.example.com, *.de"])(
    "rejects the public-suffix wildcard %j",
    (text) => {
      expect(() => parseHostPatterns(text)).toThrow(/public suffix/);
    },
  );

  it.each(["*.github.io", "*.s3.amazonaws.com", "*.internal", "*.corp", "*.lan", "*.example.com", "*.example.co.uk", "com", "co.uk", "*.www.ck"])(
    "accepts %j: a private-section suffix, an internal name, a registrable domain or an exact host",
    (text) => {
      expect(parseHostPatterns(text)).toHaveLength(1);
    },
  );

  it("names the offending item in the error", () => {
    expect(() => parseHostPatterns("ok.example.com, http://bad.example.com")).toThrow(/"http:\/\/bad\.example\.com"/);
  });
});

describe("normalizeHost", () => {
  it.each([
    ["Example.COM", "example.com"],
    ["example.com.", "example.com"],
    ["[::1]", "::1"],
    ["::1", "::1"],
    ["[0:0::1]", "::1"],
    ["192.168.0.1", "192.168.0.1"],
    ["", null],
    [".", null],
    ["a..b", null],
    ["exa mple.com", null],
    ["bad\r\nhost", null],
    ["2130706433", null],
    ["*.example.com", null],
    // colons make these look like IPv6; "@" and "/" must not turn them into user info or a path
    ["@!/:", null],
    ["[a@b:c]", null],
    ["x:y/z", null],
  ])("%j → %j", (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });
});

describe("matchHostPattern", () => {
  it.each([
    ["*.example.com", "a.example.com", 443, true],
    ["*.example.com", "A.EXAMPLE.COM.", 443, true],
    ["*.example.com", "example.com", 443, false],
    ["*.example.com", "a.b.example.com", 443, false],
    ["*.example.com", "aexample.com", 443, false],
    ["*.example.com", "a.example.org", 443, false],
    ["api.example.com", "api.example.com", 1234, true],
    ["api.example.com", "api.example.com.", 443, true],
    ["api.example.com", "x.api.example.com", 443, false],
    ["api.example.com:8443", "api.example.com", 8443, true],
    ["api.example.com:8443", "api.example.com", 443, false],
    ["*.example.com:8443", "a.example.com", 8443, true],
    ["*.example.com:8443", "a.example.com", 443, false],
    ["[::1]:8443", "[::1]", 8443, true],
    ["[::1]:8443", "::1", 8443, true],
    ["[::1]:8443", "0:0:0:0:0:0:0:1", 8443, true],
    ["[::1]", "::2", 443, false],
    ["10.0.0.1", "10.0.0.1", 80, true],
    ["10.0.0.1", "10.0.0.2", 80, false],
    ["api.example.com", "not a host", 443, false],
  ])("%s vs %s:%i → %s", (pattern, host, port, expected) => {
    expect(matchHostPattern(one(pattern), host, port)).toBe(expected);
  });

  it("reads a portless pattern as the given port when asked (bundle grants)", () => {
    const pattern = one("api.example.com");
    expect(matchHostPattern(pattern, "api.example.com", 443, { portlessPort: 443 })).toBe(true);
    expect(matchHostPattern(pattern, "api.example.com", 8443, { portlessPort: 443 })).toBe(false);
    expect(matchHostPattern(one("api.example.com:8443"), "api.example.com", 8443, { portlessPort: 443 })).toBe(true);
  });
});

describe("findBestMatch precedence", () => {
  const entries = (...patterns: string[]) => patterns.map((text, index) => ({ index, patterns: parseHostPatterns(text) }));
  const best = (list: ReturnType<typeof entries>, host: string, port: number) =>
    findBestMatch(list, (entry) => entry.patterns, host, port)?.entry.index ?? null;

  it.each([
    ["exact over wildcard, whatever the order", ["*.example.com", "api.example.com"], "api.example.com", 443, 1],
    ["exact portless over wildcard with port", ["*.example.com:443", "api.example.com"], "api.example.com", 443, 1],
    ["port-specific over portless", ["api.example.com", "api.example.com:443"], "api.example.com", 443, 1],
    ["wildcard with port over wildcard without", ["*.example.com", "*.example.com:443"], "api.example.com", 443, 1],
    ["first defined among equals", ["*.example.com", "*.example.com"], "api.example.com", 443, 0],
    ["a non-matching port does not count", ["api.example.com:8443", "*.example.com"], "api.example.com", 443, 1],
    ["no match", ["api.example.com"], "other.example.com", 443, null],
    ["best pattern inside a multi-pattern entry", ["*.example.com, api.example.com:443", "api.example.com"], "api.example.com", 443, 0],
  ])("%s", (_name, patterns, host, port, expected) => {
    expect(best(entries(...patterns), host, port)).toBe(expected);
  });
});

describe("compileHostPatterns", () => {
  it("keeps the valid items of stored text and drops the rest", () => {
    expect(compileHostPatterns("a.example.com, http://bad, *.b.example.com").map((p) => p.text)).toEqual([
      "a.example.com",
      "*.b.example.com",
    ]);
    expect(compileHostPatterns(null)).toEqual([]);
    // A public-suffix wildcard stored before it was refused grants nothing.
    expect(compileHostPatterns("*.com, api.example.com").map((p) => p.text)).toEqual(["api.example.com"]);
    expect(compileHostPatterns("")).toEqual([]);
  });

  it("returns the same frozen list for the same text", () => {
    const first = compileHostPatterns("c.example.com");
    expect(compileHostPatterns("c.example.com")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe("host-pattern fields", () => {
  it.each([
    [" a.example.com ", "a.example.com"],
    [" a.example.com, *.b.example.com:8443 ", "a.example.com, *.b.example.com:8443"],
    ["\ta.example.com\n", "a.example.com"],
    ["a.example.com", "a.example.com"],
  ])("tidies %j to %j", (text, tidy) => {
    expect(tidyHostPatterns(text)).toBe(tidy);
    expect(hostPatternField(255).parse(text)).toBe(tidy);
  });

  it.each([
    ["api.example.com/v1", /path/],
    ["a.example.com, b.example.com/", /path/],
    ["https://api.example.com", /scheme/],
  ])("refuses %j as a URL rather than a host", (text, message) => {
    expect(urlPartProblem(text)).toMatch(message);
    const parsed = hostPatternField(255).safeParse(text);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(message);
  });

  it("lets everything else through to parseHostPatterns", () => {
    for (const text of ["api.example.com", "*.example.com:443", "[::1]:8443", "a b", "*"]) expect(urlPartProblem(text)).toBeNull();
  });
});

describe("hostPatternClashes", () => {
  const service = (id: string, hostPattern: string) => ({ id, name: id, hostPattern });
  it.each([
    [[service("a", "api.example.com"), service("b", "API.example.com.")], 1],
    [[service("a", "api.example.com:443"), service("b", "api.example.com:443")], 1],
    [[service("a", "*.example.com"), service("b", "*.EXAMPLE.com")], 1],
    [[service("a", "x.test,api.example.com"), service("b", "y.test, api.example.com")], 1],
    [[service("a", "api.example.com"), service("b", "api.example.com:443")], 0],
    [[service("a", "api.example.com"), service("b", "*.example.com")], 0],
    [[service("a", "api.example.com,api.example.com")], 0],
    [[service("a", "a.test"), service("b", "b.test"), service("c", "c.test")], 0],
    [[service("a", "[::1]:8443"), service("b", "[0:0:0:0:0:0:0:1]:8443")], 1],
  ])("%j clashes %i time(s)", (services, count) => {
    expect(hostPatternClashes(services)).toHaveLength(count);
  });
});
