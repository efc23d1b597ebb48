/** A Strongroom on in-memory storage with an organization, its admin identity and a cert-manager project. */
import {
  type Actor,
  ManualClock,
  type Strongroom,
  type StrongroomConfig,
  anonymous,
  createMemoryStorage,
  createStrongroom,
  generateRootKey,
} from "../../src/index.js";

export interface CertWorld {
  sr: Strongroom;
  clock: ManualClock;
  admin: Actor;
  orgId: string;
  projectId: string;
  /** A user of the organization holding these built-in project roles. */
  userWith(roles: string[]): Promise<Actor>;
  close(): Promise<void>;
}

export async function certWorld(config: Partial<StrongroomConfig> = {}): Promise<CertWorld> {
  const clock = new ManualClock("2026-03-01T00:00:00.000Z");
  const sr = await createStrongroom({ storage: createMemoryStorage(), rootKey: generateRootKey(), clock, config, log: () => undefined });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "PKI", type: "cert-manager" });
  let users = 0;
  return {
    sr,
    clock,
    admin,
    orgId: boot.organization.id,
    projectId: project.id,
    async userWith(roles) {
      const email = `user${++users}@acme.test`;
      const { user } = await sr.organizations.createUser(admin, { orgId: boot.organization.id, email, password: "a long enough password" });
      await sr.memberships.addUsers(admin, { projectId: project.id, usernames: [email], roleSlugs: roles });
      return { type: "user", userId: user.id, tokenId: "test" };
    },
    close: () => sr.close(),
  };
}
