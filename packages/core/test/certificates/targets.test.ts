import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandIpRange, expandTargets } from "../../src/cert-manager/discovery/targets.js";
import { type AddressClass, addressRefusal, classifyAddress } from "../../src/net/address-class.js";
import { formatIp, parseIp } from "../../src/net/ip.js";
import { MAX_PORTS, parsePorts } from "../../src/net/ports.js";
import { BadRequestError } from "../../src/kernel/errors.js";

describe("parsePorts", () => {
  const ok: [string, number[]][] = [
    ["443", [443]],
    ["443,8443,9000-9002", [443, 8443, 9000, 9001, 9002]],
    ["9000 - 9002", [9000, 9001, 9002]],
    [" 8443 , 443 ,443", [443, 8443]],
    ["1,65535", [1, 65535]],
    ["1-100", Array.from({ length: 100 }, (_, i) => i + 1)],
    ["10-20,15-25", Array.from({ length: 16 }, (_, i) => i + 10)],
  ];
  it.each(ok)("%s", (spec, ports) => {
    expect(parsePorts(spec)).toEqual(ports);
  });

  const bad: [string, RegExp][] = [
    ["", /Invalid port ""/],
    ["443,", /Invalid port ""/],
    ["0", /1 to 65535/],
    ["65536", /1 to 65535/],
    ["100-90", /low to high/],
    ["https", /Invalid port "https"/],
    ["44 3", /Invalid port/],
    ["-443", /Invalid port/],
    ["1-101", /at most 100/],
    ["1-60,100-141", /at most 100/],
    ["1-65535", /at most 100/],
  ];
  it.each(bad)("%s → 400", (spec, message) => {
    expect(() => parsePorts(spec)).toThrow(BadRequestError);
    expect(() => parsePorts(spec)).toThrow(message);
  });

  it("property: the result is sorted, unique, in range and capped", () => {
    const token = fc.oneof(
      fc.integer({ min: 1, max: 65535 }).map(String),
      fc.tuple(fc.integer({ min: 1, max: 65500 }), fc.integer({ min: 0, max: 30 })).map(([a, n]) => `${a}-${a + n}`),
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 8 }), (tokens) => {
        let ports: number[];
        try {
          ports = parsePorts(tokens.join(","));
        } catch (error) {
          expect((error as Error).message).toMatch(/at most 100/);
          return;
        }
        expect(ports.length).toBeLessThanOrEqual(MAX_PORTS);
        expect([...new Set(ports)].sort((a, b) => a - b)).toEqual(ports);
        expect(ports.every((p) => p >= 1 && p <= 65535)).toBe(true);
      }),
    );
  });
});

describe("parseIp / formatIp", () => {
  it.each([
    ["10.0.0.1", "10.0.0.1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8::0:1", "2001:db8::1"],
    ["::", "::"],
    ["::1", "::1"],
    ["1::", "1::"],
    ["2001:db8:1:1:1:1:0:1", "2001:db8:1:1:1:1:0:1"],
    ["::ffff:127.0.0.1", "::ffff:127.0.0.1"],
    ["::ffff:7f00:1", "::ffff:127.0.0.1"],
  ])("%s → %s", (input, canonical) => {
    expect(formatIp(parseIp(input)!.bytes)).toBe(canonical);
  });

  it.each(["010.0.0.1", "1.2.3", "256.1.1.1", "fe80::1%eth0", "[::1]", "example.com", "", "1:2:3:4:5:6:7:8:9"])("rejects %s", (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it("property: format ∘ parse round-trips any address", () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => {
        const parsed = parseIp(text)!;
        expect(parsed).not.toBeNull();
        expect(parseIp(formatIp(parsed.bytes))!.bytes).toEqual(parsed.bytes);
      }),
    );
  });
});

describe("classifyAddress", () => {
  const table: [string, AddressClass][] = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["2606:4700:4700::1111", "public"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.15.255.255", "public"],
    ["172.32.0.0", "public"],
    ["192.168.1.1", "private"],
    ["fd12:3456::1", "private"],
    ["fc00::1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.0", "public"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.255", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.51.100.1", "reserved"],
    ["203.0.113.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    // IPv6 spellings of IPv4 addresses are judged by the IPv4 address.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::a00:1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2002:808:808::", "public"],
    ["not-an-ip", "invalid"],
    ["fe80::1%eth0", "invalid"],
  ];
  it.each(table)("%s is %s", (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });
});

describe("addressRefusal", () => {
  const table: [AddressClass, boolean, boolean][] = [
    ["public", false, true],
    ["public", true, true],
    ["private", false, false],
    ["private", true, true],
    ["loopback", false, false],
    ["loopback", true, true],
    ["cgnat", false, false],
    ["cgnat", true, true],
    ["reserved", false, false],
    ["reserved", true, true],
    ["link-local", true, false],
    ["metadata", true, false],
    ["multicast", true, false],
    ["broadcast", true, false],
    ["unspecified", true, false],
    ["invalid", true, false],
  ];
  it.each(table)("%s with allowPrivateTargets=%s → allowed %s", (kind, allow, allowed) => {
    expect(addressRefusal(kind, allow) === null).toBe(allowed);
  });
});

describe("expandIpRange", () => {
  it.each([
    ["203.0.113.7", 1],
    ["8.8.8.0/24", 256],
    ["8.8.8.0/25", 128],
    ["8.8.8.0/32", 1],
    ["2001:4860::/120", 256],
    ["2001:4860::/128", 1],
    ["8.8.8.1-8.8.8.10", 10],
    ["8.8.7.200-8.8.8.199", 256],
  ])("%s has %d addresses", (entry, count) => {
    expect(expandIpRange(entry)).toHaveLength(count);
  });

  it("masks host bits of a CIDR block", () => {
    const addresses = expandIpRange("8.8.8.77/30").map((a) => formatIp(a.bytes));
    expect(addresses).toEqual(["8.8.8.76", "8.8.8.77", "8.8.8.78", "8.8.8.79"]);
  });

  it.each([
    ["8.8.8.0/23", /no wider than \/24/],
    ["2001:4860::/119", /no wider than \/120/],
    ["8.8.7.200-8.8.8.200", /at most 256/],
    ["8.8.8.10-8.8.8.1", /ends before it starts/],
    ["8.8.8.1-2001:db8::1", /same family/],
    ["8.8.8.0/33", /expected an IP address/],
    ["8.8.8.0/", /expected an IP address/],
    ["example.com", /expected an IP address/],
  ])("%s → 400", (entry, message) => {
    expect(() => expandIpRange(entry)).toThrow(message);
  });
});

describe("expandTargets", () => {
  const open = { allowPrivateTargets: false };

  it("lists every host × port, addresses then domains, deduplicated", () => {
    const targets = expandTargets({ ipRanges: ["8.8.8.8", "8.8.8.8/32", "8.8.4.4"], domains: ["Example.COM.", "example.com"], ports: "443,8443" }, open);
    expect(targets).toEqual([
      { host: "8.8.8.8", port: 443 },
      { host: "8.8.8.8", port: 8443 },
      { host: "8.8.4.4", port: 443 },
      { host: "8.8.4.4", port: 8443 },
      { host: "example.com", port: 443, servername: "example.com" },
      { host: "example.com", port: 8443, servername: "example.com" },
    ]);
  });

  it("defaults to port 443", () => {
    expect(expandTargets({ domains: ["example.com"] }, open)).toEqual([{ host: "example.com", port: 443, servername: "example.com" }]);
  });

  it("needs at least one range or domain", () => {
    expect(() => expandTargets({ ports: "443" }, open)).toThrow(/at least one IP range or domain/);
    expect(() => expandTargets({ ipRanges: [], domains: [] }, open)).toThrow(BadRequestError);
  });

  it("allows exactly 256 hosts in all and refuses the 257th", () => {
    expect(expandTargets({ ipRanges: ["8.8.8.0/24"] }, open)).toHaveLength(256);
    expect(expandTargets({ ipRanges: ["8.8.8.0/25", "8.8.9.0/25"] }, open)).toHaveLength(256);
    expect(() => expandTargets({ ipRanges: ["8.8.8.0/24"], domains: ["example.com"] }, open)).toThrow(/at most 256/);
    expect(() => expandTargets({ ipRanges: ["8.8.8.0/24", "8.8.9.1"] }, open)).toThrow(/at most 256/);
  });

  it.each(["10.0.0.0/24", "192.168.1.10", "127.0.0.1", "100.64.0.0/30", "::1", "fd00::/120", "::ffff:10.0.0.1"])(
    "refuses private target %s unless allowed, naming it",
    (entry) => {
      expect(() => expandTargets({ ipRanges: [entry] }, open)).toThrow(BadRequestError);
      expect(() => expandTargets({ ipRanges: [entry] }, open)).toThrow(/Target .* refused/);
      expect(expandTargets({ ipRanges: [entry] }, { allowPrivateTargets: true }).length).toBeGreaterThan(0);
    },
  );

  it.each(["169.254.169.254", "169.254.169.0/24", "fe80::1", "::ffff:169.254.169.254", "224.0.0.1", "0.0.0.0"])(
    "refuses %s even when private targets are allowed",
    (entry) => {
      expect(() => expandTargets({ ipRanges: [entry] }, { allowPrivateTargets: true })).toThrow(/never allowed/);
    },
  );

  it("names the offending address inside a block", () => {
    expect(() => expandTargets({ ipRanges: ["169.254.169.0/24"] }, { allowPrivateTargets: true })).toThrow(
      'Target 169.254.169.0 (in 169.254.169.0/24) refused: link-local addresses are never allowed',
    );
  });

  it.each(["not a host", "*.example.com", "10.0.0.1", "-a.example.com", `${"a".repeat(64)}.com`, "exa_mple.com", ""])("refuses domain %j", (domain) => {
    expect(() => expandTargets({ domains: [domain] }, open)).toThrow(/Invalid domain/);
  });

  it("passes port errors through", () => {
    expect(() => expandTargets({ domains: ["example.com"], ports: "0" }, open)).toThrow(/1 to 65535/);
  });
});
