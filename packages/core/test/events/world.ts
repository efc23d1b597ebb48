import {
  anonymous,
  createMemoryStorage,
  createStrongroom,
  generateRootKey,
  ManualClock,
  type Actor,
  type ProjectEventSubscription,
  type Strongroom,
  type SubscribedEvent,
} from "@strongroom/core";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";

/**
 * A Strongroom with one project and a way to add identities that hold real tokens. Not
 * `createTestWorld`: its bus listener (the recorded events) would count among the listeners these
 * tests expect to see released.
 */
export interface EventsWorld {
  sr: Strongroom;
  clock: ManualClock;
  admin: Actor;
  projectId: string;
  /** A machine identity in the project with these roles (built-in or custom slugs), logged in. */
  identity(roles: string[]): Promise<{ actor: Actor & { type: "identity" }; membershipId: string }>;
  /** A custom project role; returns its slug. */
  role(slug: string, permissions: unknown[]): Promise<string>;
  close(): Promise<void>;
}

export async function eventsWorld(storage: Storage = createMemoryStorage()): Promise<EventsWorld> {
  const clock = new ManualClock("2026-03-01T00:00:00.000Z");
  const sr = await createStrongroom({ storage, rootKey: generateRootKey(), clock });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Payments" });
  await sr.folders.create(admin, { projectId: project.id, environment: "dev", name: "apps" });
  await sr.folders.create(admin, { projectId: project.id, environment: "dev", path: "/apps", name: "api" });
  let identities = 0;
  return {
    sr,
    clock,
    admin,
    projectId: project.id,
    async identity(roles) {
      const organizationId = boot.organization.id;
      const { identity } = await sr.identities.create(admin, { name: `bot-${++identities}`, organizationId, role: "member" });
      const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id });
      const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id });
      const { identityMembership } = await sr.memberships.addIdentity(admin, {
        projectId: project.id,
        identityId: identity.id,
        roles: roles.map((role) => ({ role, isTemporary: false })),
      });
      const login = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
      const actor = (await sr.authenticate(login.accessToken)) as Actor & { type: "identity" };
      return { actor, membershipId: identityMembership.id };
    },
    async role(slug, permissions) {
      await sr.customRoles.create(admin, { projectId: project.id, slug, name: slug, permissions } as never);
      return slug;
    },
    close: () => sr.close(),
  };
}

/** Reads events as they arrive; `next()` waits for the next one, `error()` for the end of a failed subscription. */
export function reader(subscription: ProjectEventSubscription) {
  const iterator = subscription.events[Symbol.asyncIterator]();
  return {
    async next(): Promise<SubscribedEvent> {
      const result = await iterator.next();
      if (result.done) throw new Error("the subscription ended");
      return result.value;
    },
    async end(): Promise<unknown> {
      try {
        for (;;) if ((await iterator.next()).done) return undefined;
      } catch (thrown) {
        return thrown;
      }
    },
  };
}
