import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * The URL's ids win over the body's (issue 15, principle 12): a `projectId` in the body of a
 * request whose path names `{workspaceId}` must not move the request to another project. Two
 * different names for the project are refused (422) and nothing happens in either project.
 */
describe.each(backends)("a body cannot redirect a request the URL addresses, on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  it("refuses a body projectId that differs from the path's workspaceId, and accepts the same one", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    const [named, other] = [await createProject(api, token, { projectName: "Named in the URL" }), await createProject(api, token, { projectName: "Named in the body" })];
    const tags = (projectId: string) => api.request("GET", `/api/v1/workspace/${projectId}/tags`, { token });
    const redirected = await api.request("POST", `/api/v1/workspace/${named.id}/tags`, { token, body: { slug: "moved", name: "moved", projectId: other.id } });
    expect(JSON.stringify(expectError(redirected, 422, "ValidationFailure").message)).toContain("name different projects");
    const environment = await api.request("POST", `/api/v1/workspace/${named.id}/environments`, { token, body: { name: "Moved", slug: "moved", projectId: other.id } });
    expectError(environment, 422, "ValidationFailure");
    expect((await tags(named.id)).body.workspaceTags).toEqual([]);
    expect((await tags(other.id)).body.workspaceTags).toEqual([]);
    expect((await api.request("POST", `/api/v1/workspace/${named.id}/tags`, { token, body: { slug: "same", name: "same", projectId: named.id } })).status).toBe(200);
    expect((await tags(named.id)).body.workspaceTags.map((t: { slug: string }) => t.slug)).toEqual(["same"]);
  });
});
