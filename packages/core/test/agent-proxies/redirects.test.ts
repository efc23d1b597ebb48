import { describe, expect, it } from "vitest";
import { rebundles, redirects } from "../../src/agent-vault/services/redirects.js";

describe("redirects: a service change that moves where its credentials go", () => {
  const service = { hostPattern: "api.github.com", isEnabled: true };
  it.each<[string, { hostPattern?: string; isEnabled?: boolean }, boolean]>([
    ["no change", {}, false],
    ["the same host pattern", { hostPattern: "api.github.com" }, false],
    ["the same state", { isEnabled: true }, false],
    ["another host", { hostPattern: "evil.example.net" }, true],
    ["one more host", { hostPattern: "api.github.com, evil.example.net" }, true],
    ["another spelling of the host", { hostPattern: "API.github.com" }, true],
    ["disabled", { isEnabled: false }, true],
  ])("%s", (_name, change, moved) => {
    expect(redirects(service, change)).toBe(moved);
  });

  it("enabling a disabled service moves its credentials", () => {
    expect(redirects({ hostPattern: "a.example.com", isEnabled: false }, { isEnabled: true })).toBe(true);
  });
});

describe("rebundles: a bundle change that hands its credentials to others", () => {
  const alice = { type: "user" as const, id: "a" };
  const bot = { type: "identity" as const, id: "a" };
  const bundle = { serviceIds: ["s1", "s2"], grants: [alice] };
  it.each<[string, { serviceIds?: string[]; grants?: (typeof alice | typeof bot)[] }, boolean]>([
    ["no change", {}, false],
    ["the same services in another order", { serviceIds: ["s2", "s1"] }, false],
    ["the same services with a duplicate", { serviceIds: ["s1", "s2", "s1"] }, false],
    ["the same grantees", { grants: [alice] }, false],
    ["one more service", { serviceIds: ["s1", "s2", "s3"] }, true],
    ["one service less", { serviceIds: ["s1"] }, true],
    ["another grantee", { grants: [bot] }, true],
    ["one more grantee", { grants: [alice, bot] }, true],
    ["no grantee", { grants: [] }, true],
  ])("%s", (_name, change, moved) => {
    expect(rebundles(bundle, change)).toBe(moved);
  });
});
