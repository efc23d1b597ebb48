import { expect, it } from "vitest";
import { createMemoryStorage, createStrongroom, generateRootKey, ManualClock } from "@strongroom/core";

const DAY = 24 * 60 * 60 * 1000;
const anonymous = { type: "anonymous" } as const;

async function world() {
  const clock = new ManualClock("2026-06-01T00:00:00Z");
  const strongroom = await createStrongroom({ storage: createMemoryStorage(), rootKey: generateRootKey(), clock });
  const setup = await strongroom.admin.bootstrap(anonymous, { email: "p@example.com", password: "a long password", organization: "Purge" });
  const admin = await strongroom.authenticate(setup.identity.credentials.token);
  const { project } = await strongroom.projects.create(admin, { projectName: "Purge", slug: "purge-app" });
  return { clock, strongroom, admin, project };
}

it("purges a soft-deleted environment and everything in it once deleteAfter has passed", async () => {
  const { clock, strongroom, admin, project } = await world();
  const staging = project.environments.find((e) => e.slug === "staging")!;
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
  await strongroom.close();
});

it("deleting a folder deletes the proxied services that live in it", async () => {
  const { strongroom, admin, project } = await world();
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
  await strongroom.close();
});
