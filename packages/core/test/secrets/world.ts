import { anonymous, createLocalBus, createMemoryStorage, createStrongroom, generateRootKey, ManualClock, type Actor, type ProjectEvent, type Strongroom } from "@strongroom/core";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";

/** A Strongroom on in-memory storage with one organization, its admin identity and a project. */
export interface SecretsWorld {
  sr: Strongroom;
  storage: Storage;
  clock: ManualClock;
  admin: Actor;
  orgId: string;
  projectId: string;
  projectSlug: string;
  /** Every event published on the bus, in order. */
  events: ProjectEvent[];
  /** A user of the organization with these project roles (slugs). */
  userWith(roles: string[], email?: string): Promise<Actor>;
  /** A custom project role; returns its slug. */
  role(slug: string, permissions: PermissionRule[]): Promise<string>;
}

export interface PermissionRule {
  subject: string;
  action: string | string[];
  conditions?: Record<string, unknown>;
  inverted?: boolean;
}

export async function secretsWorld(storage: Storage = createMemoryStorage()): Promise<SecretsWorld> {
  const clock = new ManualClock("2026-03-01T00:00:00.000Z");
  const bus = createLocalBus();
  const events: ProjectEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const sr = await createStrongroom({ storage, rootKey: generateRootKey(), clock, bus });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Payments" });
  let users = 0;
  return {
    sr,
    storage,
    clock,
    admin,
    orgId: boot.organization.id,
    projectId: project.id,
    projectSlug: project.slug,
    events,
    async userWith(roles, email = `user${++users}@acme.test`) {
      const { user } = await sr.organizations.createUser(admin, { orgId: boot.organization.id, email, password: "a long enough password" });
      await sr.memberships.addUsers(admin, { projectId: project.id, usernames: [email], roleSlugs: roles });
      return { type: "user", userId: user.id, tokenId: "test" };
    },
    async role(slug, permissions) {
      await sr.customRoles.create(admin, { projectId: project.id, slug, name: slug, permissions } as never);
      return slug;
    },
  };
}

/** Shorthand for the environment and project of most calls. */
export const at = (w: SecretsWorld, environment = "dev", secretPath = "/") => ({ projectId: w.projectId, environment, secretPath });
