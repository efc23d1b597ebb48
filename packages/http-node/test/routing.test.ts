import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Router, type RoutePlace } from "@strongroom/http-node";
import { expectErrorBody } from "./helpers/error-shape.js";
import { USER_TOKEN } from "./helpers/fake-strongroom.js";
import { startTestServer, type TestServer } from "./helpers/http.js";

describe("Router", () => {
  const routes: (RoutePlace & { operation: string })[] = [
    { method: "GET", path: "/api/v1/projects/{projectId}", operation: "a.get" },
    { method: "GET", path: "/api/v1/projects/details", operation: "a.details" },
    { method: "GET", path: "/api/v1/projects/{projectId}/members/{memberId}", operation: "a.member" },
    { method: "GET", path: "/api/v1/projects/details/members/all", operation: "a.all" },
    { method: "POST", path: "/api/v1/login", operation: "a.login", trailingSlash: true },
  ];
  const router = new Router(routes);
  const lookup = (method: string, path: string) => {
    const found = router.lookup(method, path);
    return found.kind === "match" ? { operation: found.match.route.operation, params: found.match.params } : found.kind;
  };

  it("prefers a literal segment over a param", () => {
    expect(lookup("GET", "/api/v1/projects/details")).toEqual({ operation: "a.details", params: {} });
    expect(lookup("GET", "/api/v1/projects/p-1")).toEqual({ operation: "a.get", params: { projectId: "p-1" } });
  });

  it("falls back to the param branch when the literal branch leads nowhere", () => {
    expect(lookup("GET", "/api/v1/projects/details/members/m1")).toEqual({
      operation: "a.member",
      params: { projectId: "details", memberId: "m1" },
    });
    expect(lookup("GET", "/api/v1/projects/details/members/all")).toEqual({ operation: "a.all", params: {} });
  });

  it("decodes params and keeps an encoded slash inside its segment", () => {
    expect(lookup("GET", "/api/v1/projects/a%2Fb%20c")).toEqual({ operation: "a.get", params: { projectId: "a/b c" } });
  });

  it("answers a trailing slash only where the route allows it", () => {
    expect(lookup("POST", "/api/v1/login/")).toEqual({ operation: "a.login", params: {} });
    expect(lookup("POST", "/api/v1/login")).toEqual({ operation: "a.login", params: {} });
    expect(lookup("GET", "/api/v1/projects/p1/")).toBe("none");
    expect(lookup("POST", "/api/v1/login//")).toBe("none");
  });

  it("matches nothing for empty segments, other methods, or paths not starting with /", () => {
    expect(lookup("GET", "/api//v1/projects/p1")).toBe("none");
    expect(lookup("GET", "/api/v1/projects/")).toBe("none");
    expect(lookup("PUT", "/api/v1/projects/p1")).toBe("none");
    expect(lookup("GET", "*")).toBe("none");
    expect(lookup("GET", "/")).toBe("none");
  });

  it("reports broken percent-encoding", () => {
    expect(lookup("GET", "/api/v1/projects/%zz")).toBe("malformed");
  });

  it("lets routes name the param at one position differently", () => {
    const named = new Router<RoutePlace & { operation: string }>([
      { method: "POST", path: "/api/v1/workspace/{workspaceId}/memberships/details", operation: "m.details" },
      { method: "POST", path: "/api/v1/workspace/{projectId}/environments", operation: "e.create" },
    ]);
    const params = (path: string) => {
      const found = named.lookup("POST", path);
      return found.kind === "match" ? found.match.params : undefined;
    };
    expect(params("/api/v1/workspace/w1/memberships/details")).toEqual({ workspaceId: "w1" });
    expect(params("/api/v1/workspace/p1/environments")).toEqual({ projectId: "p1" });
  });

  it("refuses a table that routes one path twice", () => {
    expect(() => new Router([routes[0], { ...routes[0], operation: "b.get" }])).toThrow(/twice/);
  });
});

describe("requests reaching operations", () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(() => api.close());

  it("combines body and path params, the path winning", async () => {
    const reply = await api.send("POST", "/api/v1/projects/p%201/echo", { token: USER_TOKEN, json: { name: "n", projectId: "other" } });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ projectId: "p 1", name: "n", actor: "user" });
  });

  it("reads only the listed query keys, repeated keys as a list", async () => {
    const reply = await api.send("GET", "/api/v1/projects/p1/items?limit=5&tag=a&tag=b&projectId=evil&other=1", { token: USER_TOKEN });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ projectId: "p1", limit: 5, tag: ["a", "b"] });
  });

  it("uses the route's success status", async () => {
    const reply = await api.send("POST", "/api/v1/projects", { token: USER_TOKEN, json: { name: "x" } });
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({ id: "p1", name: "x" });
    expect(reply.headers["cache-control"]).toBe("no-store");
  });

  it("treats an empty body as {}", async () => {
    const reply = await api.send("GET", "/api/status");
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: "ok" });
  });

  it("serves a trailing-slash route both ways", async () => {
    for (const path of ["/api/v1/projects/p1/echo", "/api/v1/projects/p1/echo/"]) {
      expect((await api.send("POST", path, { token: USER_TOKEN, json: { name: "n" } })).status).toBe(200);
    }
    expectErrorBody(await api.send("GET", "/api/status/"), 404, "NotFound");
  });

  it("accepts JSON content types with parameters and +json suffixes", async () => {
    for (const type of ["application/json; charset=utf-8", "application/merge-patch+json"]) {
      const reply = await api.send("POST", "/api/v1/projects/p1/echo", { token: USER_TOKEN, headers: { "content-type": type }, body: '{"name":"n"}' });
      expect(reply.status).toBe(200);
    }
  });

  it("routes an absolute-form request target by its path", async () => {
    const reply = await api.send("GET", `http://127.0.0.1:${api.port}/api/status?x=1`);
    expect(reply.json).toEqual({ status: "ok" });
  });
});
