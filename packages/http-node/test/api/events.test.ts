import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProjectEvent } from "@strongroom/core";
import { openSubscriptionCount } from "@strongroom/core/testing";
import { eventually } from "../helpers/http.js";
import { dataOf, itemsOf, openEventStream, SUBSCRIBE_PATH, type EventStreamClient, type SseMessage } from "./events-client.js";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/** The part of the `eventsource` package's EventSource these tests use. */
interface StandardEventSource {
  addEventListener(type: string, listener: (event: { type: string; lastEventId: string; data: string }) => void): void;
  onopen: (() => void) | null;
  onerror: ((error: { type: string; message?: string }) => void) | null;
  close(): void;
}
type EventSourceFetch = (url: string | URL, init: { headers?: Record<string, string>; [option: string]: unknown }) => Promise<Response>;
// Imported without its types: under this repository's `source` export condition they pull in
// eventsource-parser's .ts sources, which tsc refuses without allowImportingTsExtensions.
const { EventSource } = (await import("eventsource" as string)) as { EventSource: new (url: string, init: { fetch: EventSourceFetch }) => StandardEventSource };

const MINUTE = 60 * 1000;
const everywhere = { secretPath: "/**" };
const PING_MS = 100;
const MAX_BUFFERED = 256 * 1024;

describe.each(backends)("event subscriptions on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let projectId: string;
  let available = true;
  let identities = 0;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend, new Date(), { ssePingIntervalMs: PING_MS, sseMaxBufferedBytes: MAX_BUFFERED });
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token, { projectName: "Events" })).id;
    for (const [path, name] of [["/", "apps"], ["/apps", "api"], ["/apps/api", "v2"], ["/", "other"]]) {
      await ok(api.request("POST", "/api/v1/folders", { token: world.admin.token, body: { projectId, environment: "dev", path, name } }));
    }
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  const maybe = (name: string, fn: () => Promise<void>, timeout?: number) => it(name, async (ctx) => (available ? fn() : ctx.skip()), timeout);

  async function ok<T extends { status: number; body: unknown }>(pending: Promise<T>): Promise<T> {
    const res = await pending;
    if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  }

  /** A machine identity in the project with these roles, and its token. */
  async function member(roles: string[]) {
    const bot = await createIdentity(api, world.admin.token, world.admin.orgId, `watcher-${++identities}`);
    const added = await ok(
      api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, {
        token: world.admin.token,
        body: { roles: roles.map((role) => ({ role, isTemporary: false })) },
      }),
    );
    return { ...bot, membershipId: added.body.identityMembership.id as string };
  }

  const subscribe = (token: string | undefined, register: unknown[], body: Record<string, unknown> = {}) =>
    openEventStream(api.url, token, { projectId, register, ...body });

  const writeSecret = (method: "POST" | "PATCH" | "DELETE", name: string, environment = "dev", secretPath = "/", extra: Record<string, unknown> = {}) =>
    ok(api.request(method, `/api/v4/secrets/${name}`, { token: world.admin.token, body: { projectId, environment, secretPath, secretValue: "v", ...extra } }));

  const createMany = (secretPath: string, keys: string[], environment = "dev") =>
    ok(api.request("POST", "/api/v4/secrets/batch", { token: world.admin.token, body: { projectId, environment, secretPath, secrets: keys.map((secretKey) => ({ secretKey, secretValue: "v" })) } }));

  const bus = () => api.strongroom.context.bus;
  const openSubscriptions = () => openSubscriptionCount(api.strongroom);

  /** Closes the streams and waits until the server has released every stream (each test closes all it opens). */
  async function closed(...streams: EventStreamClient[]) {
    for (const stream of streams) stream.close();
    await Promise.all(streams.map((stream) => stream.ended));
    await eventually(() => openSubscriptions() === 0, "the server released every stream");
  }

  maybe("streams create, update and delete with SPEC.md's data shape and ids counting up", async () => {
    const watcher = await member(["viewer"]);
    const stream = await subscribe(watcher.token, [
      { event: "secret:create", conditions: everywhere },
      { event: "secret:update", conditions: everywhere },
      { event: "secret:delete", conditions: everywhere },
    ]);
    expect(stream.status).toBe(200);
    expect(stream.headers).toMatchObject({ "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
    await writeSecret("POST", "DB_URL", "dev", "/apps/api");
    await writeSecret("PATCH", "DB_URL", "dev", "/apps/api", { secretValue: "changed" });
    await writeSecret("DELETE", "DB_URL", "dev", "/apps/api");
    const frames = [await stream.next(), await stream.next(), await stream.next()];
    const payload = [{ environment: "dev", secretPath: "/apps/api", secretKey: "DB_URL" }];
    expect(frames).toEqual(
      (["secret:create", "secret:update", "secret:delete"] as const).map((eventType, i) => ({
        id: String(i + 1),
        event: eventType,
        data: JSON.stringify({ projectType: "secret-manager", data: { eventType, payload } }),
      })),
    );
    await closed(stream);
  });

  maybe("streams an import mutation as a single {environment, secretPath} object", async () => {
    await ok(
      api.request("POST", "/api/v1/secret-imports", {
        token: world.admin.token,
        body: { projectId, environment: "prod", path: "/", import: { environment: "dev", path: "/other" } },
      }),
    );
    const stream = await subscribe(world.admin.token, [{ event: "secret:import-mutation", conditions: { environmentSlug: "prod" } }]);
    await writeSecret("POST", "IMPORTED", "dev", "/other");
    const frame = await stream.next();
    expect(frame.event).toBe("secret:import-mutation");
    expect(dataOf(frame)).toEqual({ projectType: "secret-manager", data: { eventType: "secret:import-mutation", payload: { environment: "prod", secretPath: "/" } } });
    await closed(stream);
  });

  maybe("filters by environment and path glob: `/` is the root only, `/**` everything, `/apps/*` one level", async () => {
    // Every stream also registers deletions everywhere: one final deletion marks the end for all.
    const marker = { event: "secret:delete", conditions: everywhere };
    const [rootOfDev, everything, appsChildren] = await Promise.all([
      subscribe(world.admin.token, [{ event: "secret:create", conditions: { environmentSlug: "dev" } }, marker]),
      subscribe(world.admin.token, [{ event: "secret:create", conditions: everywhere }, marker]),
      subscribe(world.admin.token, [{ event: "secret:create", conditions: { secretPath: "/apps/*" } }, marker]),
    ]);
    await createMany("/", ["ROOT"]);
    await createMany("/apps", ["APPS"]);
    await createMany("/apps/api", ["API"]);
    await createMany("/apps/api/v2", ["DEEP"]);
    await createMany("/other", ["OTHER"]);
    await createMany("/", ["PROD_ROOT"], "prod");
    await writeSecret("DELETE", "ROOT");
    const received = async (stream: EventStreamClient) =>
      (await stream.until((m) => m.event === "secret:delete")).filter((m) => m.event === "secret:create").flatMap(itemsOf);
    expect(await received(rootOfDev)).toEqual(["dev:/:ROOT"]);
    expect(await received(everything)).toEqual(["dev:/:ROOT", "dev:/apps:APPS", "dev:/apps/api:API", "dev:/apps/api/v2:DEEP", "dev:/other:OTHER", "prod:/:PROD_ROOT"]);
    expect(await received(appsChildren)).toEqual(["dev:/apps/api:API"]);
    await closed(rootOfDev, everything, appsChildren);
  });

  maybe("sends only the items a custom role's secret-events rule covers", async () => {
    const role = await ok(
      api.request("POST", `/api/v1/projects/${projectId}/roles`, {
        token: world.admin.token,
        body: {
          slug: "dev-apps-events",
          name: "Dev apps events",
          permissions: [
            { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-deleted"], conditions: { environment: "dev", secretPath: { $glob: "/apps/*" } } },
            { subject: "secret-events", action: "subscribe-on-created", conditions: { secretName: { $glob: "INTERNAL_*" } }, inverted: true },
            // An event naming a secret reaches only who may describe it.
            { subject: "secrets", action: "describeSecret" },
          ],
        },
      }),
    );
    const watcher = await member([role.body.role.slug]);

    const refused = await subscribe(watcher.token, [{ event: "secret:create", conditions: everywhere }]);
    const body = expectError({ status: refused.status, headers: new Headers(), body: refused.body }, 403, "PermissionDenied");
    expect(body.details.missingPermissions).toEqual([
      { subject: "secret-events", action: "subscribe-on-created", conditions: { eventType: "secret:create", secretPath: "/**" } },
    ]);

    const stream = await subscribe(watcher.token, [
      { event: "secret:create", conditions: { environmentSlug: "dev", secretPath: "/apps/**" } },
      { event: "secret:delete", conditions: { environmentSlug: "dev", secretPath: "/apps/**" } },
    ]);
    expect(stream.status).toBe(200);
    await createMany("/apps/api", ["PUBLIC_A", "INTERNAL_B"]);
    await createMany("/apps/api/v2", ["DEEP_FOR_ROLE"]);
    await createMany("/apps", ["APPS_LEVEL"]);
    await writeSecret("DELETE", "PUBLIC_A", "dev", "/apps/api");
    const frames = await stream.until((m) => m.event === "secret:delete");
    expect(frames.map((m) => [m.id, m.event, itemsOf(m)])).toEqual([
      ["1", "secret:create", ["dev:/apps/api:PUBLIC_A"]],
      ["2", "secret:delete", ["dev:/apps/api:PUBLIC_A"]],
    ]);
    await closed(stream);
  });

  maybe("refuses with JSON error bodies before the stream opens: 401, 403, 404, 422", async () => {
    const expectRefusal = async (stream: EventStreamClient, status: number, error: string) => {
      expect(stream.headers["content-type"]).toMatch(/^application\/json/);
      return expectError({ status: stream.status, headers: new Headers(), body: stream.body }, status, error);
    };
    const register = [{ event: "secret:create" }];
    await expectRefusal(await subscribe(undefined, register), 401, "UnauthorizedError");
    await expectRefusal(await subscribe("srt_forged", register), 401, "UnauthorizedError");
    await expectRefusal(await subscribe(world.admin.token, register, { projectId: "00000000-0000-4000-8000-000000000000" }), 404, "NotFound");
    const outsider = await createIdentity(api, world.admin.token, world.admin.orgId, `outsider-${++identities}`);
    await expectRefusal(await subscribe(outsider.token, register), 403, "PermissionDenied");
    for (const bad of [[], [{ event: "secret:rotate" }], Array.from({ length: 11 }, () => ({ event: "secret:create" })), [{ event: "secret:create", conditions: { path: "/" } }]]) {
      await expectRefusal(await subscribe(world.admin.token, bad), 422, "ValidationFailure");
    }
  });

  maybe("sends `event: ping` at the configured interval", async () => {
    const stream = await subscribe(world.admin.token, [{ event: "secret:create" }]);
    await eventually(() => stream.messages.filter((m) => m.event === "ping").length >= 2, "two pings");
    expect(stream.text()).toMatch(/^event: ping\ndata: \n\n/);
    await closed(stream);
  });

  maybe("re-checks the token: a revoked token gets `event: error` at the next re-check and the stream is closed", async () => {
    const watcher = await member(["viewer"]);
    const stream = await subscribe(watcher.token, [{ event: "secret:create", conditions: everywhere }]);
    const tokenRow = (await api.strongroom.context.storage.tables.accessTokens.find({ actorId: watcher.identityId }))[0];
    await api.strongroom.context.storage.tables.accessTokens.update({ id: tokenRow.id }, { revokedAt: api.clock.now().toISOString() });
    await createMany("/", ["BEFORE_THE_RECHECK"]);
    expect(itemsOf(await stream.next())).toEqual(["dev:/:BEFORE_THE_RECHECK"]);
    api.clock.advance(MINUTE);
    await createMany("/", ["AFTER_A_MINUTE"]);
    const error = await stream.next();
    expect(error.event).toBe("error");
    expect(dataOf(error)).toEqual({ statusCode: 401, error: "UnauthorizedError", message: "The access token has expired or was revoked" });
    await stream.ended;
    expect(stream.messages.filter((m) => m.event !== "ping").map((m) => m.event)).toEqual(["secret:create", "error"]);
  });

  maybe("re-checks the token and permissions: an expired token or lost permissions end the stream", async () => {
    const email = `viewer-${++identities}@acme.test`;
    const user = await createUser(api, world.admin.token, world.admin.orgId, email);
    await ok(api.request("POST", `/api/v2/workspace/${projectId}/memberships`, { token: world.admin.token, body: { usernames: [email], roleSlugs: ["viewer"] } }));
    const watcher = await member(["viewer"]);
    const register = [{ event: "secret:create", conditions: everywhere }];
    const [userStream, identityStream] = await Promise.all([subscribe(user.token, register), subscribe(watcher.token, register)]);
    await ok(
      api.request("PATCH", `/api/v1/projects/${projectId}/memberships/${watcher.membershipId}`, {
        token: world.admin.token,
        body: { roles: [{ role: "no-access", isTemporary: false }] },
      }),
    );
    // A user's login token lives one day.
    api.clock.advance(24 * 60 * MINUTE);
    await createMany("/", ["NEXT_DAY"]);
    const [userError, identityError] = [await userStream.next(), await identityStream.next()];
    expect([userError.event, dataOf(userError).statusCode]).toEqual(["error", 401]);
    expect([identityError.event, dataOf(identityError).statusCode, dataOf(identityError).error]).toEqual(["error", 403, "PermissionDenied"]);
    await Promise.all([userStream.ended, identityStream.ended]);
  });

  maybe("allows 5 open streams per actor and project; the 6th gets 429 until one closes", async () => {
    const watcher = await member(["viewer"]);
    const register = [{ event: "secret:create" }];
    const five = await Promise.all(Array.from({ length: 5 }, () => subscribe(watcher.token, register)));
    expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await subscribe(watcher.token, register);
    expectError({ status: sixth.status, headers: new Headers(), body: sixth.body }, 429, "RateLimitExceeded");
    five[0].close();
    let again: EventStreamClient | undefined;
    // The server notices the closed connection on its own schedule.
    while (!again || again.status !== 200) again = await subscribe(watcher.token, register);
    await closed(again, ...five.slice(1));
  });

  maybe("disconnects a subscriber that stops reading while large events pile up", async () => {
    const before = openSubscriptions();
    expect(before).toBe(0);
    const socket = connect(Number(new URL(api.url).port), "127.0.0.1");
    const body = JSON.stringify({ projectId, register: [{ event: "secret:update", conditions: everywhere }] });
    socket.write(
      `POST ${SUBSCRIBE_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.admin.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Never read: the output piles up in the kernel buffers, then in the server's.
    socket.pause();
    await eventually(() => openSubscriptions() > before, "subscription opened");
    const large: ProjectEvent = {
      projectId,
      projectType: "secret-manager",
      eventType: "secret:update",
      payload: Array.from({ length: 500 }, (_, i) => ({ environment: "dev", secretPath: "/apps/api", secretKey: `SECRET_WITH_A_LONG_NAME_${"X".repeat(60)}_${i}` })),
    };
    for (let i = 0; i < 400 && openSubscriptions() > before; i++) {
      bus().publish(large);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually(() => openSubscriptions() === before, "slow subscriber released", 15_000);
    socket.destroy();
    expect((await api.request("GET", "/api/status")).status).toBe(200);
  });

  maybe(
    "leaves no listener behind after 1,000 connect/disconnect cycles",
    async () => {
      const before = bus().listenerCount();
      const watcher = await member(["viewer"]);
      const register = [{ event: "secret:create", conditions: everywhere }];
      for (let i = 0; i < 1000; i++) {
        const stream = await subscribe(watcher.token, register);
        if (stream.status !== 200) {
          // The previous connection's close has not reached the server yet.
          expect(stream.status).toBe(429);
          i--;
          continue;
        }
        stream.close();
      }
      await eventually(() => bus().listenerCount() === before, "every subscription released");
      const five = await Promise.all(Array.from({ length: 5 }, () => subscribe(watcher.token, register)));
      expect(five.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
      await closed(...five);
      await eventually(() => bus().listenerCount() === before, "released again");
    },
    120_000,
  );

  maybe("works with a standard SSE client (eventsource) sending the POST body through its fetch option", async () => {
    const received: { type: string; id: string; data: string }[] = [];
    const source = new EventSource(api.url + SUBSCRIBE_PATH, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          method: "POST",
          headers: { ...init.headers, authorization: `Bearer ${world.admin.token}`, "content-type": "application/json" },
          body: JSON.stringify({ projectId, register: [{ event: "secret:create", conditions: everywhere }] }),
        }),
    });
    try {
      source.addEventListener("secret:create", (event) => received.push({ type: event.type, id: event.lastEventId, data: event.data }));
      await new Promise<void>((resolve, reject) => {
        source.onopen = () => resolve();
        source.onerror = (error) => reject(new Error(`eventsource failed: ${error.message ?? error.type}`));
      });
      await createMany("/apps", ["FROM_EVENTSOURCE"]);
      await eventually(() => received.length === 1, "event received");
      expect(received[0]).toMatchObject({ type: "secret:create", id: "1" });
      expect(JSON.parse(received[0].data).data.payload).toEqual([{ environment: "dev", secretPath: "/apps", secretKey: "FROM_EVENTSOURCE" }]);
    } finally {
      source.close();
    }
  });
});

export type { SseMessage };
