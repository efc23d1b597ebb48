import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { expect, it, onTestFinished } from "vitest";

const DAY = 24 * 60 * 60 * 1000;

forEachStore("environment and folder removals", (store) => {
  /** A world of the test's own: the purge job sweeps the whole instance. */
  async function world(): Promise<TestWorld & { project: { id: string } }> {
    const w = await createTestWorld({ storage: await store.open() });
    onTestFinished(() => w.close());
    return { ...w, project: { id: w.projectId } };
  }

  it("purges a soft-deleted environment and everything in it once deleteAfter has passed", async () => {
    const { clock, sr: strongroom, admin, project } = await world();
    const staging = (await strongroom.projects.get(admin, { projectId: project.id })).project.environments.find((e) => e.slug === "staging")!;
    await strongroom.secrets.create(admin, { projectId: project.id, environment: "staging", secretName: "DOOMED", secretValue: "v1" });
    await strongroom.secrets.update(admin, { projectId: project.id, environment: "staging", secretName: "DOOMED", secretValue: "v2" });
    await strongroom.secrets.create(admin, { projectId: project.id, environment: "dev", secretName: "KEPT", secretValue: "k" });
    await strongroom.environments.delete(admin, { projectId: project.id, id: staging.id });
    const tables = strongroom.context.storage.tables;
    const rowsOf = async (envId: string) => (await tables.secrets.count({ envId })) + (await tables.secretVersions.count({ envId }));
    expect(await rowsOf(staging.id)).toBeGreaterThan(0);

    clock.advance(29 * DAY);
    await strongroom.scheduler.runDue();
    expect((await strongroom.projects.get(admin, { projectId: project.id })).project.deletedEnvironments.map((e) => e.slug)).toEqual(["staging"]);

    clock.advance(2 * DAY);
    expect(await strongroom.scheduler.runDue()).toContain("environment-purge");
    const after = (await strongroom.projects.get(admin, { projectId: project.id })).project;
    expect(after.deletedEnvironments).toEqual([]);
    expect(after.environments.map((e) => e.slug)).toEqual(["dev", "prod"]);
    expect(await rowsOf(staging.id)).toBe(0);
    const kept = (await strongroom.secrets.get(admin, { projectId: project.id, environment: "dev", secretName: "KEPT" })) as { secret: { secretValue: string } };
    expect(kept.secret.secretValue).toBe("k");
  });

  it("deleting a folder deletes the proxied services that live in it", async () => {
    const { sr: strongroom, admin, project } = await world();
    await strongroom.folders.create(admin, { projectId: project.id, environment: "dev", name: "apis" });
    await strongroom.secrets.create(admin, { projectId: project.id, environment: "dev", secretPath: "/apis", secretName: "TOKEN", secretValue: "t" });
    const { service } = (await strongroom.proxiedServices.create(admin, {
      projectId: project.id,
      environment: "dev",
      secretPath: "/apis",
      name: "api",
      hostPattern: "api.example.com",
      credentials: [{ secretKey: "TOKEN", headerName: "x-api-key" }],
    })) as { service: { id: string } };
    await strongroom.folders.delete(admin, { projectId: project.id, environment: "dev", path: "/", folderIdOrName: "apis" });
    await expect(strongroom.proxiedServices.get(admin, { serviceId: service.id })).rejects.toMatchObject({ code: "NotFound" });
    expect(await strongroom.context.storage.tables.proxiedServiceCredentials.count({ serviceId: service.id })).toBe(0);
  });

  it("purging an environment deletes the proxied services that live in it", async () => {
    const { clock, sr: strongroom, admin, project } = await world();
    const staging = (await strongroom.projects.get(admin, { projectId: project.id })).project.environments.find((e) => e.slug === "staging")!;
    await strongroom.secrets.create(admin, { projectId: project.id, environment: "staging", secretName: "TOKEN", secretValue: "t" });
    const { service } = (await strongroom.proxiedServices.create(admin, {
      projectId: project.id,
      environment: "staging",
      name: "api",
      hostPattern: "api.example.com",
      credentials: [{ secretKey: "TOKEN", headerName: "x-api-key" }],
    })) as { service: { id: string } };
    await strongroom.environments.delete(admin, { projectId: project.id, id: staging.id });
    const tables = strongroom.context.storage.tables;
    expect(await tables.proxiedServices.count({ id: service.id })).toBe(1);
    clock.advance(31 * DAY);
    expect(await strongroom.scheduler.runDue()).toContain("environment-purge");
    expect(await tables.proxiedServices.count({ id: service.id })).toBe(0);
    expect(await tables.proxiedServiceCredentials.count({ serviceId: service.id })).toBe(0);
  });
});
