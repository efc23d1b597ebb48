import { describe, expect, it } from "vitest";
import { isOwnMembership, refuseOwnAccessChange } from "../../src/access/own-access.js";
import type { Actor } from "../../src/kernel/actor.js";

const user = (userId: string): Actor => ({ type: "user", userId, tokenId: "t" });
const identity = (identityId: string): Actor => ({ type: "identity", identityId, orgId: "o", tokenId: "t" });
const ofUser = (userId: string) => ({ userId, identityId: null });
const ofIdentity = (identityId: string) => ({ userId: null, identityId });

describe("isOwnMembership", () => {
  it.each<[string, Actor, { userId: string | null; identityId: string | null }, boolean]>([
    ["a user's own membership", user("u1"), ofUser("u1"), true],
    ["another user's", user("u1"), ofUser("u2"), false],
    ["an identity's own membership", identity("i1"), ofIdentity("i1"), true],
    ["another identity's", identity("i1"), ofIdentity("i2"), false],
    // Ids of users and identities never stand for each other, even when equal.
    ["a user and an identity sharing an id", user("x"), ofIdentity("x"), false],
    ["an identity and a user sharing an id", identity("x"), ofUser("x"), false],
    ["anonymous", { type: "anonymous" }, ofUser("u1"), false],
    ["an agent proxy", { type: "agent-proxy", proxyId: "p", orgId: "o", tokenId: "t" }, ofIdentity("p"), false],
  ])("%s", (_name, actor, membership, own) => {
    expect(isOwnMembership(actor, membership)).toBe(own);
    if (own) expect(() => refuseOwnAccessChange(actor, membership, "roles")).toThrow(/your own roles/);
    else expect(() => refuseOwnAccessChange(actor, membership, "roles")).not.toThrow();
  });
});
