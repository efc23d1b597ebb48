import { describe, expect, it } from "vitest";
import { servesSession } from "../../src/agent-vault/channel/served-sessions.js";

describe("servesSession: a proxy resolves credentials only for sessions it serves", () => {
  const proxy = { id: "proxy-a", orgId: "org-1" };
  it.each([
    ["bound to no proxy, same organization", { orgId: "org-1", proxyId: null }, { orgId: "org-1" }, true],
    ["bound to this proxy", { orgId: "org-1", proxyId: "proxy-a" }, { orgId: "org-1" }, true],
    ["bound to another proxy of the organization", { orgId: "org-1", proxyId: "proxy-b" }, { orgId: "org-1" }, false],
    ["of another organization", { orgId: "org-2", proxyId: null }, { orgId: "org-2" }, false],
    ["of another organization, naming this proxy", { orgId: "org-2", proxyId: "proxy-a" }, { orgId: "org-1" }, false],
    ["under a bundle of another organization", { orgId: "org-1", proxyId: null }, { orgId: "org-2" }, false],
  ])("%s → %s", (_case, session, bundle, served) => {
    expect(servesSession(proxy, session, bundle)).toBe(served);
  });
});
