import { anonymous, type Actor, type ProjectEventSubscription, type SubscribedEvent } from "@strongroom/core";
import type { TestWorld } from "@strongroom/core/testing";
import { createRootCa } from "../../src/x509/issue.js";

/**
 * The insider's scene for the model-based test (issue 15): an admin's project where secrets are
 * denied to a restricted machine identity (the insider) by tag, environment, name and path, an
 * accomplice identity the insider may edit, and the admin's proxied services and access bundle
 * that broker a denied secret to the insider's agent sessions. One scene per sequence, in a world
 * shared by the sequences of one store.
 */

/** What the admin's rules take away: everything about reading, or only the value. */
export type Denied = "read" | "readValue";

export const ENVIRONMENTS = ["dev", "staging", "prod"] as const;

/** A secret the admin placed where the insider's rules deny it. */
export interface DeniedSecret {
  readonly name: string;
  readonly environment: string;
  readonly secretPath: string;
  readonly tags: readonly string[];
}

/**
 * The admin's denied secrets. Their names never occur in what the insider writes (the command
 * generators draw names from another pool), so a name seen in a read is a leak, not an echo.
 */
export const DENIED: readonly DeniedSecret[] = [
  { name: "CARD_NUMBER", environment: "dev", secretPath: "/", tags: ["pci"] },
  { name: "STRIPE_LIVE_KEY", environment: "dev", secretPath: "/", tags: [] },
  { name: "PROD_DB_URL", environment: "prod", secretPath: "/", tags: [] },
  { name: "VAULT_MASTER", environment: "dev", secretPath: "/vault", tags: [] },
  { name: "DEEP_SEAL", environment: "dev", secretPath: "/vault/deep", tags: ["public"] },
  { name: "APP_PCI_TOKEN", environment: "dev", secretPath: "/apps", tags: ["pci", "public"] },
  { name: "STAGE_CARD", environment: "staging", secretPath: "/apps", tags: ["pci"] },
];

/** Secrets the insider may read: targets for its renames, retags and references. */
export const OPEN = [
  { name: "OPEN_KEY", environment: "dev", secretPath: "/", tags: [] as string[] },
  { name: "APP_KEY", environment: "dev", secretPath: "/apps", tags: ["public"] },
  { name: "STAGE_KEY", environment: "staging", secretPath: "/", tags: [] as string[] },
];

export const FOLDERS = [
  { environment: "dev", path: "/", name: "vault" },
  { environment: "dev", path: "/vault", name: "deep" },
  { environment: "dev", path: "/", name: "apps" },
  { environment: "staging", path: "/", name: "apps" },
  { environment: "prod", path: "/", name: "apps" },
];

/** What marks a denied secret in any answer: strings the insider can only have got from it. */
export interface Marks {
  /** Always secret. */
  readonly values: readonly string[];
  /** Secret only when the whole secret is denied (`read`): names, comments, metadata, ids. */
  readonly described: readonly string[];
}

const SECRET_EVENTS = ["secret:create", "secret:update", "secret:delete", "secret:import-mutation"] as const;

export function insiderRules(denied: Denied) {
  const crud = ["read", "create", "edit", "delete"];
  const deny = (conditions: Record<string, unknown>) => ({ subject: "secrets", action: denied, inverted: true, conditions });
  return [
    { subject: "secrets", action: crud },
    { subject: "secret-folders", action: crud },
    { subject: "secret-imports", action: crud },
    { subject: "tags", action: crud },
    { subject: "environments", action: crud },
    { subject: "proxied-services", action: crud },
    { subject: "identity", action: ["read", "edit", "grant-privileges"] },
    { subject: "member", action: ["read", "edit"] },
    { subject: "role", action: ["read"] },
    { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"] },
    deny({ secretTags: { $in: ["pci"] } }),
    deny({ environment: "prod" }),
    deny({ secretName: { $glob: "*_LIVE_*" } }),
    deny({ secretPath: { $glob: "/vault/**" } }),
  ];
}

/** The accomplice's own rights at first: no secret, so that any it reads came from the insider. */
const HELPER_RULES = [
  { subject: "tags", action: ["read"] },
  { subject: "secret-folders", action: ["read"] },
  { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"] },
];

/** Events a subscription delivered, collected as they arrive, and whether it has ended. */
export class EventLog {
  readonly events: SubscribedEvent[] = [];
  ended = false;
  constructor(readonly subscription: ProjectEventSubscription) {
    void (async () => {
      try {
        for await (const event of subscription.events) this.events.push(event);
      } catch {
        // A subscription that ends with an error (its access changed) ends; the sweep reopens it.
      }
      this.ended = true;
    })();
  }
  take(): SubscribedEvent[] {
    return this.events.splice(0);
  }
}

/** One principal the insider controls: the insider itself or its accomplice. */
export interface Principal {
  readonly name: "insider" | "accomplice";
  readonly actor: Actor;
  readonly identityId: string;
  log?: EventLog;
  /** Agent-session tokens it opened (on the admin's bundle and its own). */
  readonly sessions: string[];
}

export interface Scene {
  readonly w: TestWorld;
  readonly denied: Denied;
  readonly projectId: string;
  readonly tagIds: Record<string, string>;
  readonly envIds: Record<string, string>;
  /** Denied secrets' ids, by name. */
  readonly deniedIds: Record<string, string>;
  /** Every secret id the admin made (denied and open), for the id-addressed operations. */
  readonly secretIds: string[];
  readonly marks: Marks;
  readonly insider: Principal;
  readonly accomplice: Principal;
  /** The admin's proxied service brokering CARD_NUMBER, and its bundle granted to both principals. */
  readonly adminServiceId: string;
  /** The insider's own service, brokering OPEN_KEY to its own host (a foothold it legitimately holds). */
  readonly insiderServiceId: string;
  readonly adminBundleId: string;
  /** The world's agent proxy. */
  readonly proxy: Actor;
  /** Custom role slugs of the project: the insider's, and one that reads everything. */
  readonly roles: { insider: string; readAll: string };
  close(): void;
}

let scenes = 0;

export const deniedValue = (name: string, n: number) => `denied-value-${name}-${n}-a7c3`;

/** The world's agent proxy, enrolled once per world. */
export async function enrollProxy(w: TestWorld): Promise<Actor> {
  const { token } = await w.sr.agentProxies.create(w.admin, { name: "edge" });
  const ca = await createRootCa({ commonName: "Proxy CA", keyAlgorithm: "EC_prime256v1", ttlMs: 3650 * 24 * 60 * 60 * 1000, now: w.clock.now() });
  const enrolled = await w.sr.agentProxies.enroll(anonymous, { enrollmentToken: token, rootCaCertificate: ca.certificatePem });
  return w.sr.authenticate(enrolled.accessToken);
}

async function identity(w: TestWorld, name: string): Promise<{ actor: Actor; identityId: string }> {
  const { identity } = await w.sr.identities.create(w.admin, { name, organizationId: w.orgId, role: "member" });
  const { identityUniversalAuth } = await w.sr.identities.attachUniversalAuth(w.admin, { identityId: identity.id } as never);
  const { clientSecret } = await w.sr.identities.createClientSecret(w.admin, { identityId: identity.id } as never);
  const { accessToken } = await w.sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
  return { actor: await w.sr.authenticate(accessToken), identityId: identity.id };
}

/** Opens (or reopens) a principal's subscription to every secret event of the project; refused ones stay closed. */
export async function subscribe(scene: Pick<Scene, "w" | "projectId">, p: Principal): Promise<void> {
  if (p.log && !p.log.ended) return;
  // Without an environment, a registration matches every environment (renamed and new ones too).
  const register = SECRET_EVENTS.map((event) => ({ event, conditions: { secretPath: "/**" } }));
  try {
    p.log = new EventLog(await scene.w.sr.events.subscribe(p.actor, { projectId: scene.projectId, register }));
  } catch {
    p.log = undefined;
  }
}

export async function insiderScene(w: TestWorld, proxy: Actor, denied: Denied): Promise<Scene> {
  const n = ++scenes;
  const sr = w.sr;
  const admin = w.admin;
  const { project } = await sr.projects.create(admin, { projectName: `Insider ${n}` } as never);
  const projectId = project.id;
  const envIds: Record<string, string> = {};
  for (const env of (await sr.environments.list(admin, { projectId })).environments) envIds[env.slug] = env.id;
  const tagIds: Record<string, string> = {};
  for (const slug of ["pci", "public"]) tagIds[slug] = (await sr.tags.create(admin, { projectId, slug, name: slug })).workspaceTag.id;
  for (const f of FOLDERS) await sr.folders.create(admin, { projectId, environment: f.environment, path: f.path, name: f.name } as never);

  const values: string[] = [];
  const described: string[] = [];
  const deniedIds: Record<string, string> = {};
  const secretIds: string[] = [];
  const create = async (s: { name: string; environment: string; secretPath: string; tags: readonly string[] }, value: string, comment: string) => {
    const { secret } = await sr.secrets.create(admin, {
      projectId,
      environment: s.environment,
      secretPath: s.secretPath,
      secretName: s.name,
      secretValue: value,
      secretComment: comment,
      secretMetadata: [{ key: "owner", value: `${comment}-meta` }],
      tagIds: s.tags.map((t) => tagIds[t]!),
    });
    secretIds.push(secret.id);
    return secret.id as string;
  };
  for (const s of DENIED) {
    const value = deniedValue(s.name, n);
    const id = await create(s, value, `denied-comment-${s.name}-${n}`);
    // A second version, so the history holds a denied value the current one does not.
    await sr.secrets.update(admin, { projectId, environment: s.environment, secretPath: s.secretPath, secretName: s.name, secretValue: `${value}-v2` });
    deniedIds[s.name] = id;
    values.push(value);
    described.push(s.name, `denied-comment-${s.name}-${n}`, id);
  }
  for (const s of OPEN) await create(s, `open-value-${s.name}`, `open-comment-${s.name}`);

  const insiderRole = (await sr.customRoles.create(admin, { projectId, slug: `insider-${n}`, name: `Insider ${n}`, permissions: insiderRules(denied) } as never)).role.slug as string;
  const readAll = (await sr.customRoles.create(admin, { projectId, slug: `read-all-${n}`, name: `Read all ${n}`, permissions: [{ subject: "secrets", action: ["read"] }] } as never))
    .role.slug as string;

  const principal = async (name: Principal["name"], role: string): Promise<Principal> => {
    const made = await identity(w, `${name}-${n}`);
    await sr.memberships.addIdentity(admin, { projectId, identityId: made.identityId, roles: [{ role, isTemporary: false }] } as never);
    return { name, ...made, sessions: [] };
  };
  // The accomplice starts with nothing of the secrets: what it reads, the insider must have handed it.
  const helper = (await sr.customRoles.create(admin, { projectId, slug: `helper-${n}`, name: `Helper ${n}`, permissions: HELPER_RULES } as never)).role.slug as string;
  const insider = await principal("insider", insiderRole);
  const accomplice = await principal("accomplice", helper);

  // The admin brokers CARD_NUMBER to its payment provider and grants the insiders agent sessions on it.
  const { service } = await sr.proxiedServices.create(admin, {
    projectId,
    environment: "dev",
    secretPath: "/",
    name: `payments-${n}`,
    hostPattern: "api.payments.test",
    credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "CARD_NUMBER" }],
  } as never);
  const { bundle } = await sr.accessBundles.create(admin, {
    projectId,
    name: `payments-${n}`,
    serviceIds: [service.id],
    grants: [
      { type: "identity", id: insider.identityId },
      { type: "identity", id: accomplice.identityId },
    ],
  } as never);
  for (const p of [insider, accomplice]) p.sessions.push((await sr.agentSessions.create(p.actor, { bundleId: bundle.id, ttl: 24 * 60 * 60 })).token);
  // The insider's own footing: a service handing a secret it may read to its own host, bundled for itself.
  const own = await sr.proxiedServices.create(insider.actor, {
    projectId,
    environment: "dev",
    secretPath: "/",
    name: `insider-${n}`,
    hostPattern: "api.evil.test",
    credentials: [{ headerName: "X-Key", secretKey: "OPEN_KEY" }],
  } as never);
  const ownBundle = await sr.accessBundles.create(insider.actor, {
    projectId,
    name: `insider-${n}`,
    serviceIds: [own.service.id],
    grants: [{ type: "identity", id: insider.identityId }],
  } as never);
  insider.sessions.push((await sr.agentSessions.create(insider.actor, { bundleId: ownBundle.bundle.id, ttl: 24 * 60 * 60 })).token);

  const scene: Scene = {
    w,
    denied,
    projectId,
    tagIds,
    envIds,
    deniedIds,
    secretIds,
    marks: { values, described },
    insider,
    accomplice,
    adminServiceId: service.id,
    adminBundleId: bundle.id,
    insiderServiceId: own.service.id,
    proxy,
    roles: { insider: insiderRole, readAll },
    close() {
      for (const p of [insider, accomplice]) p.log?.subscription.cancel();
    },
  };
  for (const p of [insider, accomplice]) await subscribe(scene, p);
  return scene;
}
