import { createMemoryStorage, type StrongroomStorage } from "../entries/storage.js";
import { generateRootKey } from "../crypto/keyring.js";
import { anonymous, type Actor } from "../kernel/actor.js";
import { createLocalBus, type EventBus, type ProjectEvent } from "../kernel/bus.js";
import { ManualClock } from "../kernel/clock.js";
import type { StrongroomConfig } from "../kernel/config.js";
import { createStrongroom, type Strongroom, type StrongroomOptions } from "../strongroom.js";

/** A project permission rule as roles and privileges take it. */
export interface TestRule {
  subject: string;
  action: string | string[];
  conditions?: Record<string, unknown>;
  inverted?: boolean;
}

/**
 * A Strongroom instance with what most tests start from: a bootstrapped organization, its admin
 * identity, one project, a manual clock and every published event. `userWith` and `identityWith`
 * add members holding real tokens.
 */
export interface TestWorld {
  readonly sr: Strongroom;
  readonly storage: StrongroomStorage;
  readonly clock: ManualClock;
  readonly rootKey: string;
  /** The organization admin machine identity bootstrap made. */
  readonly admin: Actor;
  /** Its bearer token. */
  readonly adminToken: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly projectSlug: string;
  /** Every event published on the instance's bus, oldest first. */
  readonly events: ProjectEvent[];
  /** A new user of the organization, added to the project with these roles (slugs). */
  userWith(roles: string[], email?: string): Promise<Actor>;
  /** A new machine identity of the organization with a real token, added to the project with these roles. */
  identityWith(roles: string[], name?: string): Promise<{ actor: Actor; token: string; identityId: string }>;
  /** A custom project role; returns its slug. */
  role(slug: string, permissions: TestRule[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestWorldOptions {
  /** Default: a fresh memory store. */
  storage?: StrongroomStorage;
  clock?: ManualClock;
  /** Type of the world's project. Default `secret-manager`. */
  projectType?: "secret-manager" | "cert-manager" | "kms";
  config?: Partial<StrongroomConfig>;
  /** Default: an in-process bus. */
  bus?: EventBus;
  /** The certificate manager's I/O, when a test replaces the Node defaults. */
  certManager?: StrongroomOptions["certManager"];
  /** Dynamic-secret providers the instance offers (`@strongroom/dynamic-secrets`). */
  dynamicSecretProviders?: StrongroomOptions["dynamicSecretProviders"];
  /** Where the instance logs. Default: JSON lines on stderr. */
  log?: StrongroomOptions["log"];
  /** The audit log; `false` for tests that must own every transaction the storage sees. */
  audit?: StrongroomOptions["audit"];
}

export async function createTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const storage = options.storage ?? createMemoryStorage();
  const clock = options.clock ?? new ManualClock("2026-03-01T00:00:00.000Z");
  const rootKey = generateRootKey();
  const bus = options.bus ?? createLocalBus();
  const events: ProjectEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const sr = await createStrongroom({ storage, rootKey, clock, bus, config: options.config, certManager: options.certManager, dynamicSecretProviders: options.dynamicSecretProviders, log: options.log, audit: options.audit });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const adminToken = boot.identity.credentials.token;
  const admin = await sr.authenticate(adminToken);
  const { project } = await sr.projects.create(admin, { projectName: "Payments", type: options.projectType ?? "secret-manager" } as never);
  const orgId = boot.organization.id;
  let users = 0;
  let identities = 0;
  return {
    sr,
    storage,
    clock,
    rootKey,
    admin,
    adminToken,
    orgId,
    projectId: project.id,
    projectSlug: project.slug,
    events,
    async userWith(roles, email = `user${++users}@acme.test`) {
      const password = "a long enough password";
      await sr.organizations.createUser(admin, { orgId, email, password });
      await sr.memberships.addUsers(admin, { projectId: project.id, usernames: [email], roleSlugs: roles });
      const { accessToken } = await sr.auth.login(anonymous, { email, password });
      return sr.authenticate(accessToken);
    },
    async identityWith(roles, name = `bot-${++identities}`) {
      const { identity } = await sr.identities.create(admin, { name, organizationId: orgId, role: "member" });
      const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id } as never);
      const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id } as never);
      const { accessToken } = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
      const [first, ...rest] = roles;
      await sr.memberships.addIdentity(admin, {
        projectId: project.id,
        identityId: identity.id,
        ...(rest.length ? { roles: roles.map((role) => ({ role, isTemporary: false })) } : { role: first ?? "member" }),
      } as never);
      return { actor: await sr.authenticate(accessToken), token: accessToken, identityId: identity.id };
    },
    async role(slug, permissions) {
      await sr.customRoles.create(admin, { projectId: project.id, slug, name: slug, permissions } as never);
      return slug;
    },
    close: () => sr.close(),
  };
}
