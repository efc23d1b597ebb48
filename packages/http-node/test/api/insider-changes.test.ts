import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";
import { insiderScene, query, valueOf, valuesVisibleTo, type Denied, type Scene } from "./insider-scene.js";

/**
 * Issue 15, principle 1: a mutation is authorized against the object as it is and as it will be.
 * A member denied reading by tag, environment, name or path tries to lift the deny by changing
 * the secret (or what the rule names) instead of reading it; every variant is refused, changes
 * nothing, and leaves the secret as unreadable as before.
 */
describe.each(backends)("changes are authorized as they are and as they will be, on %s", (backend) => {
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
  const maybe = (name: string, fn: () => Promise<void>) => it(name, async (ctx) => (available ? fn() : ctx.skip()));

  /** The insider learned nothing it was denied: no denied value anywhere it can list. */
  const stillDenied = async (scene: Scene) => expect(await valuesVisibleTo(api, scene)).toEqual([]);

  for (const denied of ["read", "readValue"] as Denied[]) {
    describe(`with ${denied} denied`, () => {
      maybe("deleting the denied tag is refused; a tag on nothing denied can go", async () => {
        const s = await insiderScene(api, world, denied);
        expectError(await s.call("DELETE", `/api/v1/workspace/${s.projectId}/tags/${s.tagIds.pci}`), 403, "PermissionDenied");
        const card = await s.ok("GET", `/api/v4/secrets/CARD${query({ projectId: s.projectId, environment: "dev" })}`);
        expect(card.secret.tags.map((t: { slug: string }) => t.slug)).toEqual(["pci"]);
        await stillDenied(s);
        // Variant: the tag is on a readable secret too; still refused while it guards one.
        await s.ok("PATCH", "/api/v4/secrets/OPEN", { projectId: s.projectId, environment: "dev", tagIds: [s.tagIds.pci] });
        expectError(await s.call("DELETE", `/api/v1/workspace/${s.projectId}/tags/${s.tagIds.pci}`), 403);
        expect((await s.call("DELETE", `/api/v1/workspace/${s.projectId}/tags/${s.tagIds.public}`)).status).toBe(200);
      });

      maybe("renaming the denied environment is refused; other environments and names can change", async () => {
        const s = await insiderScene(api, world, denied);
        const prod = `/api/v1/workspace/${s.projectId}/environments/${s.envIds.prod}`;
        expectError(await s.call("PATCH", prod, { slug: "production" }), 403, "PermissionDenied");
        expectError(await s.call("PATCH", prod, { name: "Production", slug: "prod-renamed", position: 3 }), 403);
        expect(await s.adminValue("PROD_DB", "prod")).toBe(valueOf("PROD_DB"));
        await stillDenied(s);
        // Renaming without a new slug moves nothing; nor does a new slug for an environment holding nothing denied.
        expect((await s.call("PATCH", prod, { name: "Production" })).status).toBe(200);
        expect((await s.call("PATCH", `/api/v1/workspace/${s.projectId}/environments/${s.envIds.staging}`, { slug: "stage" })).status).toBe(200);
        // Variant: the environment rename would lift a tag deny only through its slug: a denied tag elsewhere does not block it.
        await s.ok("POST", "/api/v4/secrets/STAGE_CARD", { projectId: s.projectId, environment: "stage", secretValue: "x", tagIds: [s.tagIds.pci] });
        expect((await s.call("PATCH", `/api/v1/workspace/${s.projectId}/environments/${s.envIds.staging}`, { slug: "stage-2" })).status).toBe(200);
      });

      maybe("renaming a denied secret out of its deny is refused on v4, v3 raw and batch", async () => {
        const s = await insiderScene(api, world, denied);
        const at = { projectId: s.projectId, environment: "dev" };
        expectError(await s.call("PATCH", "/api/v4/secrets/API_LIVE_KEY", { ...at, newSecretName: "API_KEY" }), 403, "PermissionDenied");
        expectError(await s.call("PATCH", "/api/v3/secrets/raw/API_LIVE_KEY", { workspaceId: s.projectId, environment: "dev", newSecretName: "API_KEY" }), 403);
        expectError(await s.call("PATCH", "/api/v4/secrets/batch", { ...at, secrets: [{ secretKey: "API_LIVE_KEY", newSecretName: "API_KEY" }] }), 403);
        // Hidden among harmless items, and with a value change riding along.
        const batch = await s.call("PATCH", "/api/v4/secrets/batch", {
          ...at,
          secrets: [
            { secretKey: "OPEN", secretValue: "changed" },
            { secretKey: "API_LIVE_KEY", newSecretName: "API_KEY", secretValue: "mine" },
          ],
        });
        expectError(batch, 403);
        expect(await s.adminValue("OPEN", "dev")).toBe(valueOf("OPEN"));
        expect(await s.adminValue("API_LIVE_KEY", "dev")).toBe(valueOf("API_LIVE_KEY"));
        expect(await s.adminValue("API_KEY", "dev")).toBeUndefined();
        await stillDenied(s);
      });

      maybe("retagging a denied secret out of its deny is refused on every route", async () => {
        const s = await insiderScene(api, world, denied);
        const at = { projectId: s.projectId, environment: "dev" };
        expectError(await s.call("PATCH", "/api/v4/secrets/CARD", { ...at, tagIds: [] }), 403, "PermissionDenied");
        expectError(await s.call("PATCH", "/api/v4/secrets/CARD", { ...at, tagIds: [s.tagIds.public] }), 403);
        expectError(await s.call("PATCH", "/api/v3/secrets/raw/CARD", { workspaceId: s.projectId, environment: "dev", tagIds: [] }), 403);
        expectError(await s.call("PATCH", "/api/v4/secrets/batch", { ...at, secrets: [{ secretKey: "CARD", tagIds: [] }] }), 403);
        expectError(await s.call("DELETE", "/api/v3/secrets/tags/CARD", { ...at, tagSlugs: ["pci"] }), 403);
        // Renamed and retagged at once.
        expectError(await s.call("PATCH", "/api/v4/secrets/CARD", { ...at, newSecretName: "CARD_2", tagIds: [] }), 403);
        const card = await s.ok("GET", `/api/v4/secrets/CARD${query(at)}`);
        expect(card.secret).toMatchObject({ version: 1, tags: [{ slug: "pci" }] });
        await stillDenied(s);
      });

      maybe("a rename into a deny never answers with what the actor may not see", async () => {
        const s = await insiderScene(api, world, denied);
        const at = { projectId: s.projectId, environment: "dev" };
        await s.call("POST", "/api/v4/secrets/MINE", { ...at, secretValue: "my-value", secretComment: "my comment" });
        const renamed = await s.call("PATCH", "/api/v4/secrets/MINE", { ...at, newSecretName: "MINE_LIVE_NOW" });
        if (denied === "read") {
          // A name it could never describe: refused before anything is looked up.
          expectError(renamed, 403);
        } else {
          expect(renamed.status).toBe(200);
          expect(renamed.body.secret).toMatchObject({ secretKey: "MINE_LIVE_NOW", secretValue: "", secretValueHidden: true, secretComment: "my comment" });
        }
        // Retagging into the deny: allowed (nothing is gained), the answer hides what it now denies.
        const tagged = await s.call("PATCH", "/api/v4/secrets/OPEN", { ...at, tagIds: [s.tagIds.pci], secretValue: "new-open" });
        expect(tagged.status).toBe(200);
        expect(tagged.body.secret).toMatchObject({ secretKey: "OPEN", secretValue: "", secretValueHidden: true });
        if (denied === "read") expect(tagged.body.secret).toMatchObject({ tags: [], secretComment: "", secretMetadata: [] });
        // And it cannot be taken back out.
        expectError(await s.call("PATCH", "/api/v4/secrets/OPEN", { ...at, tagIds: [] }), 403);
      });

      maybe("moving secrets through an import or a reference does not lift the deny", async () => {
        const s = await insiderScene(api, world, denied);
        const at = { projectId: s.projectId, environment: "dev" };
        // Importing a folder it could describe nothing in is refused outright; otherwise the import shows no more than reading would.
        const imported = await s.call("POST", "/api/v1/secret-imports", { ...at, path: "/", import: { environment: "prod", path: "/" } });
        expect(imported.status).toBe(denied === "read" ? 403 : 200);
        await s.call("POST", "/api/v4/secrets/POINTER", { ...at, secretValue: "${prod.PROD_DB} ${CARD} ${API_LIVE_KEY} ${dev.vault.VAULT_KEY}" });
        const got = await s.call("GET", `/api/v4/secrets/POINTER${query({ ...at, expandSecretReferences: true })}`);
        expect(got.body.secret.secretValue).toBe("${prod.PROD_DB} ${CARD} ${API_LIVE_KEY} ${dev.vault.VAULT_KEY}");
        await stillDenied(s);
      });
    });
  }

  maybe("an insider without edit on the denied secret cannot touch it at all", async () => {
    const rules = [
      { subject: "secrets", action: ["read", "create", "edit", "delete"] },
      { subject: "secrets", action: ["read", "edit"], inverted: true, conditions: { secretTags: { $in: ["pci"] } } },
      { subject: "tags", action: ["read", "delete"] },
      { subject: "environments", action: ["read", "edit"] },
    ];
    const s = await insiderScene(api, world, "read", rules);
    expectError(await s.call("PATCH", "/api/v4/secrets/CARD", { projectId: s.projectId, environment: "dev", secretValue: "mine" }), 403);
    expectError(await s.call("DELETE", `/api/v1/workspace/${s.projectId}/tags/${s.tagIds.pci}`), 403);
    // Renaming dev moves CARD too, which it may not edit.
    expectError(await s.call("PATCH", `/api/v1/workspace/${s.projectId}/environments/${s.envIds.dev}`, { slug: "development" }), 403);
    expect(await s.adminValue("CARD", "dev")).toBe(valueOf("CARD"));
  });
});
