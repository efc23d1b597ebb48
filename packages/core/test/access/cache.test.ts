import { describe, expect, it } from "vitest";
import { anonymous, createStrongroom, ManualClock, StrongroomError, type Actor, type Strongroom } from "@strongroom/core";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";
import { createTestWorld } from "@strongroom/core/testing";
import { ACCESS_CACHE_TTL_MS } from "../../src/access/caches.js";

/**
 * The access caches (tokens by hash, access per actor and project, live environments): what an
 * operation changes applies at once on its instance; what another node changes, within
 * ACCESS_CACHE_TTL_MS; expiry of tokens and temporary grants is judged by the clock every time.
 */

const PASSWORD = "a long enough password";

interface Node {
  sr: Strongroom;
  admin: Actor;
}

interface World {
  storage: Storage;
  clock: ManualClock;
  rootKey: string;
  /** The node everything was set up on. */
  a: Node;
  orgId: string;
  projectId: string;
  /** A user with the project role `member`, its token and membership. */
  token: string;
  membershipId: string;
}

async function world(): Promise<World> {
  const { sr, admin, storage, clock, rootKey, orgId, projectId } = await createTestWorld();
  await sr.secrets.create(admin, { projectId, environment: "dev", secretPath: "/", secretName: "API_KEY", secretValue: "s3cret" });
  const email = "dev@acme.test";
  const { user } = await sr.organizations.createUser(admin, { orgId, email, password: PASSWORD });
  await sr.memberships.addUsers(admin, { projectId, usernames: [email], roleSlugs: ["member"] });
  const { accessToken } = await sr.auth.login(anonymous, { email, password: PASSWORD });
  const membership = await storage.tables.projectMemberships.findOne({ projectId, userId: user.id });
  return { storage, clock, rootKey, a: { sr, admin }, orgId, projectId, token: accessToken, membershipId: membership!.id };
}

/** A second node: another instance on the same storage, with its own caches. */
async function secondNode(w: World): Promise<Node> {
  const sr = await createStrongroom({ storage: w.storage, rootKey: w.rootKey, clock: w.clock });
  return { sr, admin: w.a.admin };
}

/** How a read of the world's secret by the world's user ends: "ok", or the error's code. */
async function readStatus(w: World, node: Node, token = w.token): Promise<string> {
  try {
    const actor = await node.sr.authenticate(token);
    await node.sr.secrets.get(actor, { projectId: w.projectId, environment: "dev", secretPath: "/", secretName: "API_KEY" });
    return "ok";
  } catch (error) {
    if (error instanceof StrongroomError) return error.code;
    throw error;
  }
}

const revokeInStorage = (w: World) =>
  w.storage.tables.accessTokens.update({ revokedAt: null, actorType: "user" }, { revokedAt: w.clock.now().toISOString() });

const setRoles = (w: World, node: Node, roles: Record<string, unknown>[]) =>
  node.sr.memberships.updateRoles(node.admin, { projectId: w.projectId, membershipId: w.membershipId, roles } as never);

describe("access caches", () => {
  it("keep their bound for other nodes within 5 s", () => {
    expect(ACCESS_CACHE_TTL_MS).toBeGreaterThan(0);
    expect(ACCESS_CACHE_TTL_MS).toBeLessThanOrEqual(5_000);
  });

  it("apply a role change made on the same node at once", async () => {
    const w = await world();
    expect(await readStatus(w, w.a)).toBe("ok");
    await setRoles(w, w.a, [{ role: "no-access", isTemporary: false }]);
    expect(await readStatus(w, w.a)).toBe("PermissionDenied");
    await setRoles(w, w.a, [{ role: "viewer", isTemporary: false }]);
    expect(await readStatus(w, w.a)).toBe("ok");
  });

  it("apply a custom role's new permissions on the same node at once", async () => {
    const w = await world();
    const { sr, admin } = w.a;
    const reader = [{ subject: "secrets", action: ["read"] }];
    await sr.customRoles.create(admin, { projectId: w.projectId, slug: "reader", name: "Reader", permissions: reader } as never);
    await setRoles(w, w.a, [{ role: "reader", isTemporary: false }]);
    expect(await readStatus(w, w.a)).toBe("ok");
    const role = await w.storage.tables.projectRoles.findOne({ projectId: w.projectId, slug: "reader" });
    const tagsOnly = [{ subject: "tags", action: ["read"] }];
    await sr.customRoles.update(admin, { projectId: w.projectId, roleId: role!.id, permissions: tagsOnly } as never);
    expect(await readStatus(w, w.a)).toBe("PermissionDenied");
  });

  it("apply an environment's deletion on the same node at once", async () => {
    const w = await world();
    expect(await readStatus(w, w.a)).toBe("ok");
    const env = await w.storage.tables.environments.findOne({ projectId: w.projectId, slug: "dev" });
    await w.a.sr.environments.delete(w.a.admin, { projectId: w.projectId, id: env!.id });
    expect(await readStatus(w, w.a)).toBe("NotFound");
  });

  it("drop cached tokens on the node of any operation that may change access, such as one revoking tokens", async () => {
    const w = await world();
    expect(await readStatus(w, w.a)).toBe("ok");
    // The write a revoking operation makes, then an operation of the same kind (outside the secrets area).
    await revokeInStorage(w);
    await w.a.sr.organizations.createUser(w.a.admin, { orgId: w.orgId, email: "other@acme.test", password: PASSWORD });
    expect(await readStatus(w, w.a)).toBe("UnauthorizedError");
  });

  it("reject a token revoked by another node within the TTL", async () => {
    const w = await world();
    const b = await secondNode(w);
    expect(await readStatus(w, b)).toBe("ok");
    await revokeInStorage(w);
    w.clock.advance(ACCESS_CACHE_TTL_MS);
    expect(await readStatus(w, b)).toBe("UnauthorizedError");
  });

  it("apply a role change made on another node within the TTL", async () => {
    const w = await world();
    const b = await secondNode(w);
    expect(await readStatus(w, b)).toBe("ok");
    await setRoles(w, w.a, [{ role: "no-access", isTemporary: false }]);
    expect(await readStatus(w, w.a)).toBe("PermissionDenied");
    w.clock.advance(ACCESS_CACHE_TTL_MS);
    expect(await readStatus(w, b)).toBe("PermissionDenied");
  });

  it("judge a cached token's expiry by the clock on every request", async () => {
    const w = await world();
    const row = await w.storage.tables.accessTokens.findOne({ actorType: "user", revokedAt: null });
    w.clock.set(new Date(row!.expiresAt).getTime() - 1);
    expect(await readStatus(w, w.a)).toBe("ok");
    w.clock.advance(1);
    expect(await readStatus(w, w.a)).toBe("UnauthorizedError");
  });

  it("end and start temporary roles at their exact moments, not at the TTL", async () => {
    const w = await world();
    const start = new Date(w.clock.now().getTime() - 9_000).toISOString();
    // Member for 10 s from 9 s ago: 1 s left.
    await setRoles(w, w.a, [
      { role: "no-access", isTemporary: false },
      { role: "member", isTemporary: true, temporaryMode: "relative", temporaryRange: "10s", temporaryAccessStartTime: start },
    ]);
    expect(await readStatus(w, w.a)).toBe("ok");
    w.clock.advance(1_000);
    expect(await readStatus(w, w.a)).toBe("PermissionDenied");

    // Member for 10 s from 1 s ahead.
    const later = new Date(w.clock.now().getTime() + 1_000).toISOString();
    await setRoles(w, w.a, [
      { role: "no-access", isTemporary: false },
      { role: "member", isTemporary: true, temporaryMode: "relative", temporaryRange: "10s", temporaryAccessStartTime: later },
    ]);
    expect(await readStatus(w, w.a)).toBe("PermissionDenied");
    w.clock.advance(1_000);
    expect(await readStatus(w, w.a)).toBe("ok");
  });

  it("do not serve an entry when the clock is set back before it was read", async () => {
    const w = await world();
    expect(await readStatus(w, w.a)).toBe("ok");
    await revokeInStorage(w);
    w.clock.advance(-1);
    expect(await readStatus(w, w.a)).toBe("UnauthorizedError");
  });

  it("count their hits and misses for metrics, a stale entry being a miss", async () => {
    const w = await world();
    const tokens = () => w.a.sr.context.caches.stats().tokens ?? { size: 0, hits: 0, misses: 0 };
    const start = tokens();
    expect(await readStatus(w, w.a)).toBe("ok");
    expect(await readStatus(w, w.a)).toBe("ok");
    const warm = tokens();
    expect(warm.hits - start.hits).toBeGreaterThanOrEqual(1);
    expect(warm.size).toBeGreaterThanOrEqual(1);
    w.clock.advance(ACCESS_CACHE_TTL_MS);
    expect(await readStatus(w, w.a)).toBe("ok");
    expect(tokens().misses).toBeGreaterThan(warm.misses);
  });
});
