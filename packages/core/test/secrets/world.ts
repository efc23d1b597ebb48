import { anonymous } from "@strongroom/core";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";
import { createTestWorld, type TestWorld } from "@strongroom/core/testing";

/** What the secret tests work with: an instance, its admin, one project and helpers bound to that project. */
export type SecretsWorld = Pick<TestWorld, "sr" | "storage" | "clock" | "admin" | "orgId" | "projectId" | "projectSlug" | "events" | "userWith" | "role">;

/** A new instance (on a fresh memory store unless given one) with an organization, its admin and a project. */
export const secretsWorld = (storage?: Storage): Promise<TestWorld> => createTestWorld({ storage });

let projects = 0;

/**
 * A project of its own in a shared world, with members and roles bound to it. Suites that run on
 * every store share one world per store (a PostgreSQL database takes about a second to create)
 * and give each test a fresh project.
 */
export async function freshProject(world: TestWorld): Promise<SecretsWorld> {
  const n = ++projects;
  const { sr, admin, orgId } = world;
  const { project } = await sr.projects.create(admin, { projectName: `Payments ${n}` });
  let users = 0;
  return {
    sr,
    storage: world.storage,
    clock: world.clock,
    admin,
    orgId,
    projectId: project.id,
    projectSlug: project.slug,
    events: world.events,
    async userWith(roles, email = `p${n}-user${++users}@acme.test`) {
      const password = "a long enough password";
      await sr.organizations.createUser(admin, { orgId, email, password });
      await sr.memberships.addUsers(admin, { projectId: project.id, usernames: [email], roleSlugs: roles });
      return sr.authenticate((await sr.auth.login(anonymous, { email, password })).accessToken);
    },
    async role(slug, permissions) {
      await sr.customRoles.create(admin, { projectId: project.id, slug, name: slug, permissions } as never);
      return slug;
    },
  };
}

/** Shorthand for the environment and project of most calls. */
export const at = (w: { projectId: string }, environment = "dev", secretPath = "/") => ({ projectId: w.projectId, environment, secretPath });
