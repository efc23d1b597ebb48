import { describe, expect, it } from "vitest";
import { decideTraffic, type TrafficInput, type TrafficPolicy, type TrafficService } from "../../src/entries/agent.js";

type Service = TrafficService<string>;

const service = (id: string, hostPattern: string, overrides: Partial<Service> = {}): Service => ({
  id,
  hostPattern,
  isEnabled: true,
  bundled: true,
  credentials: [`cred-${id}`],
  ...overrides,
});

const decide = (overrides: Partial<TrafficInput<Service>> & Pick<TrafficInput<Service>, "host">) =>
  decideTraffic<Service>({ policy: "any-host", allowedHosts: null, services: [], port: 443, tls: true, ...overrides });

/** A compact outcome: `broker:<service id>`, `passthrough:<reason>` or `deny:<reason>`. */
const outcome = (overrides: Parameters<typeof decide>[0]): string => {
  const decision = decide(overrides);
  return decision.action === "broker" ? `broker:${decision.service.id}` : `${decision.action}:${decision.reason}`;
};

const services = [
  service("github", "api.github.com, *.githubusercontent.com"),
  service("internal", "*.corp.example:8443"),
  service("unbundled", "api.stripe.com", { bundled: false }),
  service("disabled", "api.openai.com", { isEnabled: false }),
];

describe("decideTraffic", () => {
  it.each<[string, TrafficPolicy, string | null, string, number, boolean, string]>([
    // any-host: everything leaves; granted services broker over TLS on any port when portless.
    ["any-host brokers a granted service", "any-host", null, "api.github.com", 443, true, "broker:github"],
    ["any-host: portless service pattern matches any port", "any-host", null, "api.github.com", 8080, true, "broker:github"],
    ["any-host: wildcard service", "any-host", null, "raw.githubusercontent.com", 443, true, "broker:github"],
    ["any-host: unmatched host passes through", "any-host", null, "example.org", 443, true, "passthrough:no-matching-service"],
    ["any-host: wrong port for a port-specific pattern", "any-host", null, "a.corp.example", 443, true, "passthrough:no-matching-service"],
    ["any-host: port-specific pattern on its port", "any-host", null, "a.corp.example", 8443, true, "broker:internal"],
    ["any-host: disabled service is skipped", "any-host", null, "api.openai.com", 443, true, "passthrough:no-matching-service"],
    ["any-host: service outside the agent's bundles lends no credential", "any-host", null, "api.stripe.com", 443, true, "passthrough:no-matching-service"],
    ["any-host: plain HTTP to a brokered host", "any-host", null, "api.github.com", 80, false, "passthrough:tls-required"],
    ["any-host: allowedHosts wins over a granted service", "any-host", "api.github.com", "api.github.com", 443, true, "passthrough:allowed-host"],
    ["any-host: allowedHosts entry for another port leaves the service", "any-host", "api.github.com:8443", "api.github.com", 443, true, "broker:github"],

    // bundle-hosts: only granted hosts (portless = 443) and allowedHosts.
    ["bundle-hosts brokers a granted host on 443", "bundle-hosts", null, "API.GitHub.com.", 443, true, "broker:github"],
    ["bundle-hosts: portless grant means 443 only", "bundle-hosts", null, "api.github.com", 8443, true, "deny:host-not-allowed"],
    ["bundle-hosts: explicit grant port", "bundle-hosts", null, "x.corp.example", 8443, true, "broker:internal"],
    ["bundle-hosts: explicit grant port, other port", "bundle-hosts", null, "x.corp.example", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: wildcard is one label only", "bundle-hosts", null, "a.b.githubusercontent.com", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: unknown host denied", "bundle-hosts", null, "example.org", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: not granted", "bundle-hosts", null, "api.stripe.com", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: disabled grants nothing", "bundle-hosts", null, "api.openai.com", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: allowed host passes through", "bundle-hosts", "example.org", "example.org", 443, true, "passthrough:allowed-host"],
    ["bundle-hosts: portless allowed host on any port", "bundle-hosts", "example.org", "example.org", 8080, false, "passthrough:allowed-host"],
    ["bundle-hosts: allowed wildcard", "bundle-hosts", "*.example.org", "a.example.org", 443, true, "passthrough:allowed-host"],
    ["bundle-hosts: allowed wildcard is one label", "bundle-hosts", "*.example.org", "example.org", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: allowed host with port", "bundle-hosts", "example.org:8443", "example.org", 443, true, "deny:host-not-allowed"],
    ["bundle-hosts: allowed wins over a granted service", "bundle-hosts", "*.github.com", "api.github.com", 443, true, "passthrough:allowed-host"],
    ["bundle-hosts: allowed makes a non-granted service reachable without credential", "bundle-hosts", "api.stripe.com", "api.stripe.com", 443, true, "passthrough:allowed-host"],
    ["bundle-hosts: plain HTTP on a granted port", "bundle-hosts", null, "x.corp.example", 8443, false, "passthrough:tls-required"],
    ["bundle-hosts: unreadable allowedHosts items grant nothing", "bundle-hosts", "http://example.org, ok.example", "example.org", 443, true, "deny:host-not-allowed"],

    // Destinations that are not hosts are refused under both policies.
    ["invalid host", "any-host", null, "exa mple.com", 443, true, "deny:invalid-destination"],
    ["invalid port", "any-host", null, "api.github.com", 0, true, "deny:invalid-destination"],
    ["numeric host shorthand", "bundle-hosts", "127.0.0.1", "2130706433", 443, true, "deny:invalid-destination"],
  ])("%s", (_name, policy, allowedHosts, host, port, tls, expected) => {
    expect(outcome({ policy, allowedHosts, services, host, port, tls })).toBe(expected);
  });

  it("returns the matched service and its credentials", () => {
    const decision = decide({ services, host: "api.github.com" });
    expect(decision).toEqual({ action: "broker", service: services[0], credentials: ["cred-github"], reason: "service-match" });
  });

  it("brokers the most specific granted service, then the first defined", () => {
    const list = [service("wild", "*.example.com"), service("exact", "api.example.com"), service("exact-again", "api.example.com")];
    expect(outcome({ services: list, host: "api.example.com" })).toBe("broker:exact");
    expect(outcome({ services: list, host: "www.example.com" })).toBe("broker:wild");
    const ported = [service("portless", "api.example.com"), service("ported", "api.example.com:443")];
    expect(outcome({ services: ported, host: "api.example.com" })).toBe("broker:ported");
  });

  it("never hands a more specific service the agent was not granted", () => {
    const list = [service("granted", "*.example.com"), service("other", "api.example.com", { bundled: false })];
    for (const policy of ["any-host", "bundle-hosts"] as const) {
      expect(outcome({ policy, services: list, host: "api.example.com" })).toBe("broker:granted");
    }
  });

  it("denies with status 403 and a message naming the host", () => {
    const decision = decide({ policy: "bundle-hosts", services, host: "Evil.Example.ORG", port: 8443 });
    expect(decision).toMatchObject({ action: "deny", status: 403, reason: "host-not-allowed" });
    expect(decision.action === "deny" && decision.message).toMatch(/evil\.example\.org:8443/);
    const ipv6 = decide({ policy: "bundle-hosts", host: "::1", port: 443 });
    expect(ipv6.action === "deny" && ipv6.message).toMatch(/\[::1\]:443/);
  });

  it("never carries a credential in a passthrough or deny", () => {
    for (const tls of [true, false]) {
      const decision = decide({ services, host: "api.github.com", tls, allowedHosts: tls ? "api.github.com" : null });
      expect(decision.action).toBe("passthrough");
      expect(decision).not.toHaveProperty("credentials");
    }
  });
});
