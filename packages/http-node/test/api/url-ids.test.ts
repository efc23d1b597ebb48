import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createProject, startApi, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * Issue 15, principle 12: the URL's ids win over the body's. A route that names its project in the
 * path (`/api/v1/workspace/{workspaceId}/…`) acts on that project whatever project the body names,
 * under any of the names a body may use for it (projectId, workspaceId, projectSlug).
 */
describe.each(backends)("the URL's project wins over the body's, on %s", (backend) => {
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

  it("creates tags and environments in the project the path names", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    const a = await createProject(api, token, { projectName: "Path project" });
    const b = await createProject(api, token, { projectName: "Body project" });
    const elsewhere = [{ projectId: b.id }, { workspaceId: b.id }, { projectSlug: b.slug }];
    for (const [i, other] of elsewhere.entries()) {
      const tag = await api.request("POST", `/api/v1/workspace/${a.id}/tags`, { token, body: { ...other, slug: `tag-${i}` } });
      expect(tag.status).toBe(200);
      expect(tag.body.workspaceTag.projectId).toBe(a.id);
      const env = await api.request("POST", `/api/v1/workspace/${a.id}/environments`, { token, body: { ...other, name: `Env ${i}`, slug: `env-${i}` } });
      expect(env.status).toBe(200);
      expect(env.body.environment.projectId).toBe(a.id);
    }
    const tagsOfB = await api.request("GET", `/api/v1/workspace/${b.id}/tags`, { token });
    expect(tagsOfB.body.workspaceTags).toEqual([]);
  });
});
