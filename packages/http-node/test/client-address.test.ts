import { describe, expect, it } from "vitest";
import { TrustedProxies } from "../src/client-address.js";

/** DESIGN.md §11: one client address, through trusted proxies only. */
describe("the client's address", () => {
  const proxies = TrustedProxies.parse("10.0.0.0/8, 192.168.1.1, fd00::/8");
  const none = TrustedProxies.parse(undefined);

  it.each([
    ["no proxy trusted: the socket, whatever the header says", none, "203.0.113.5", "198.51.100.1", "203.0.113.5"],
    ["an untrusted peer's header is ignored", proxies, "203.0.113.5", "198.51.100.1", "203.0.113.5"],
    ["a trusted peer without a header is the client", proxies, "10.0.0.2", undefined, "10.0.0.2"],
    ["a trusted peer: the right-most entry", proxies, "10.0.0.2", "198.51.100.1", "198.51.100.1"],
    ["the right-most untrusted entry, not the left-most (the client wrote that)", proxies, "10.0.0.2", "1.1.1.1, 198.51.100.1", "198.51.100.1"],
    ["trusted hops are skipped", proxies, "10.0.0.2", "1.1.1.1, 198.51.100.1, 192.168.1.1, 10.9.9.9", "198.51.100.1"],
    ["every hop trusted: the left-most", proxies, "10.0.0.2", "10.1.1.1, 192.168.1.1", "10.1.1.1"],
    ["several header lines read as one list", proxies, "10.0.0.2", ["1.1.1.1", "198.51.100.1, 10.1.1.1"], "198.51.100.1"],
    ["an IPv4-mapped peer counts as IPv4", proxies, "::ffff:10.0.0.2", "198.51.100.7", "198.51.100.7"],
    ["IPv6 proxies and clients", proxies, "fd00::1", "2001:db8::9", "2001:db8::9"],
    ["garbage stops the walk at the hop that wrote it", proxies, "10.0.0.2", "198.51.100.1, not-an-ip, 10.1.1.1", "10.1.1.1"],
    ["an empty header is no header", proxies, "10.0.0.2", " , ", "10.0.0.2"],
  ] as const)("%s", (_name, list, peer, header, expected) => {
    expect(list.clientAddress(peer, header as string | string[] | undefined)).toBe(expected);
  });

  it("refuses settings that are not addresses or blocks", () => {
    for (const bad of ["10.0.0.0/33", "proxy.local", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x"]) {
      expect(() => TrustedProxies.parse(bad), bad).toThrow(/STRONGROOM_TRUSTED_PROXIES/);
    }
  });
});
