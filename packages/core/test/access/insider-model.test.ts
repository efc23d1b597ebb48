import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";

/**
 * The model-based insider test (issue 15, "Tests"; DESIGN.md §11). An admin keeps secrets a
 * restricted member may not read — by tag, environment, name and path — and the member then runs
 * long random sequences of what its role allows (create, rename, retag, tag deletion, environment
 * and folder renames, imports, references, version reads, edits of its own membership). The
 * oracle is this test's own model — the ids of the secrets the admin's rules deny and the value
 * and name each holds, fixed at setup since only the admin may change them — never the production
 * permission engine. Invariant after every step: no denied value, and no denied name, is readable
 * through any read path (lists with imports and references, single reads, versions, events, and
 * the answers of the member's own writes).
 *
 * Runs: INSIDER_RUNS sequences on the memory store (default 1,000), a twentieth of that on SQLite and
 * PostgreSQL; up to 30 steps each. `FC_SEED` replays a failure; the default seed is fixed.
 * `npm run insider` runs ten times as many.
 */
const RUNS = Number(process.env.INSIDER_RUNS ?? 1_000);
const SEED = Number(process.env.FC_SEED ?? 20_261_128);
const MAX_STEPS = 30;

const DENIED = {
  CARD: { environment: "dev", secretPath: "/", tag: "pci" },
  API_LIVE_KEY: { environment: "dev", secretPath: "/" },
  PROD_DB: { environment: "prod", secretPath: "/" },
  VAULT_KEY: { environment: "dev", secretPath: "/vault" },
} as const;
type DeniedName = keyof typeof DENIED;
const DENIED_NAMES = Object.keys(DENIED) as DeniedName[];
const valueOf = (name: string) => `value-of-${name}`;

/** Names the member uses for its own secrets: none is, or contains, a denied name. */
const OWN_NAMES = ["OPEN", "MINE_A", "MINE_B", "X_LIVE_Y", "TAGGED"] as const;
const ENV_SLUGS = ["dev", "prod", "staging", "prod-renamed", "dev-renamed"] as const;
const PATHS = ["/", "/vault", "/apps", "/open-vault"] as const;
const TAGS = ["pci", "public"] as const;
/** Values that try to pull a denied one through reference expansion. */
const VALUES = ["plain", "${CARD}", "${API_LIVE_KEY}", "${prod.PROD_DB}", "${dev.vault.VAULT_KEY}", "${dev.OPEN}"] as const;

function insiderRules() {
  const deny = (conditions: Record<string, unknown>) => ({ subject: "secrets", action: "read", inverted: true, conditions });
  const crud = ["read", "create", "edit", "delete"];
  return [
    { subject: "secrets", action: crud },
    { subject: "secret-folders", action: crud },
    { subject: "secret-imports", action: crud },
    { subject: "tags", action: crud },
    { subject: "environments", action: crud },
    { subject: "identity", action: crud },
    { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"] },
    deny({ secretTags: { $in: ["pci"] } }),
    deny({ environment: "prod" }),
    deny({ secretName: { $glob: "*_LIVE_*" } }),
    deny({ secretPath: { $glob: "/vault/**" } }),
  ];
}

/** One project's scene: its ids, and everything the member has been shown so far. */
interface Scene {
  projectId: string;
  envIds: Record<string, string>;
  tagIds: Record<string, string>;
  folderIds: Record<string, string>;
  deniedIds: Record<DeniedName, string>;
  membershipId: string;
  /** The member's event stream, collected as it arrives. */
  events: unknown[];
  stop(): void;
}

/** What a leak looks like in any text the member was shown. */
function leaks(text: string, namesToo: boolean): string[] {
  const found: string[] = [];
  for (const name of DENIED_NAMES) {
    if (text.includes(valueOf(name))) found.push(`value of ${name}`);
    if (namesToo && text.includes(`"${name}"`)) found.push(`name ${name}`);
  }
  return found;
}

const attempt = async (fn: () => Promise<unknown>): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> => {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
};

/** A step the member takes: run as the member, against the scene. */
type Step = { describe: string; run(world: TestWorld, member: Actor, scene: Scene): Promise<unknown> };

const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ name: pick(OWN_NAMES), env: pick(ENV_SLUGS), path: pick(PATHS), value: pick(VALUES), tags: fc.subarray([...TAGS]) }).map((s) => ({
    describe: `create ${s.env}:${s.path}:${s.name} = ${s.value} [${s.tags}]`,
    run: (w: TestWorld, m: Actor, sc: Scene) =>
      w.sr.secrets.create(m, { projectId: sc.projectId, environment: s.env, secretPath: s.path, secretName: s.name, secretValue: s.value, tagIds: s.tags.map((t) => sc.tagIds[t]!) }),
  })),
  fc.record({ name: pick([...OWN_NAMES, ...DENIED_NAMES]), to: pick(OWN_NAMES), env: pick(ENV_SLUGS), path: pick(PATHS) }).map((s) => ({
    describe: `rename ${s.env}:${s.path}:${s.name} → ${s.to}`,
    run: (w: TestWorld, m: Actor, sc: Scene) =>
      w.sr.secrets.update(m, { projectId: sc.projectId, environment: s.env, secretPath: s.path, secretName: s.name, newSecretName: s.to }),
  })),
  fc.record({ name: pick([...OWN_NAMES, ...DENIED_NAMES]), env: pick(ENV_SLUGS), path: pick(PATHS), tags: fc.subarray([...TAGS]), value: fc.option(pick(VALUES), { nil: undefined }) }).map(
    (s) => ({
      describe: `retag ${s.env}:${s.path}:${s.name} [${s.tags}]${s.value ? ` = ${s.value}` : ""}`,
      run: (w: TestWorld, m: Actor, sc: Scene) =>
        w.sr.secrets.update(m, {
          projectId: sc.projectId,
          environment: s.env,
          secretPath: s.path,
          secretName: s.name,
          tagIds: s.tags.map((t) => sc.tagIds[t]!),
          ...(s.value ? { secretValue: s.value } : {}),
        }),
    }),
  ),
  pick(TAGS).map((tag) => ({
    describe: `delete tag ${tag}`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.tags.delete(m, { projectId: sc.projectId, tagId: sc.tagIds[tag]! }),
  })),
  fc.record({ env: pick(["dev", "prod", "staging"] as const), to: pick(ENV_SLUGS) }).map((s) => ({
    describe: `rename environment ${s.env} → ${s.to}`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.environments.update(m, { projectId: sc.projectId, id: sc.envIds[s.env]!, slug: s.to, name: s.to }),
  })),
  fc.record({ folder: pick(["vault", "apps"] as const), to: pick(["open-vault", "apps", "vault2"] as const) }).map((s) => ({
    describe: `rename folder ${s.folder} → ${s.to}`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.folders.update(m, { projectId: sc.projectId, environment: "dev", folderId: sc.folderIds[s.folder]!, name: s.to }),
  })),
  fc.record({ env: pick(ENV_SLUGS), from: pick(ENV_SLUGS), path: pick(PATHS) }).map((s) => ({
    describe: `import ${s.from}:${s.path} into ${s.env}:/`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.secretImports.create(m, { projectId: sc.projectId, environment: s.env, path: "/", import: { environment: s.from, path: s.path } }),
  })),
  fc.record({ name: pick([...OWN_NAMES, ...DENIED_NAMES]), env: pick(ENV_SLUGS), path: pick(PATHS), version: fc.integer({ min: 1, max: 4 }) }).map((s) => ({
    describe: `read ${s.env}:${s.path}:${s.name} version ${s.version}`,
    run: (w: TestWorld, m: Actor, sc: Scene) =>
      w.sr.secrets.get(m, { projectId: sc.projectId, environment: s.env, secretPath: s.path, secretName: s.name, version: s.version, expandSecretReferences: true }),
  })),
  pick(DENIED_NAMES).map((name) => ({
    describe: `list versions of ${name} by id`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.secrets.listVersions(m, { secretId: sc.deniedIds[name] } as never),
  })),
  pick(["admin", "member"] as const).map((role) => ({
    describe: `give itself ${role}`,
    run: (w: TestWorld, m: Actor, sc: Scene) => w.sr.memberships.updateRoles(m, { projectId: sc.projectId, membershipId: sc.membershipId, roles: [{ role, isTemporary: false }] }),
  })),
);

async function setUp(world: TestWorld, memberId: string, n: number, member: Actor): Promise<Scene> {
  const { sr, admin } = world;
  const { project } = await sr.projects.create(admin, { projectName: `Insider model ${n}` });
  const projectId = project.id;
  const envIds = Object.fromEntries(project.environments.map((e: { slug: string; id: string }) => [e.slug, e.id]));
  const tagIds: Record<string, string> = {};
  for (const slug of TAGS) tagIds[slug] = (await sr.tags.create(admin, { projectId, slug, name: slug } as never)).workspaceTag.id;
  const folderIds: Record<string, string> = {};
  for (const name of ["vault", "apps"]) folderIds[name] = (await sr.folders.create(admin, { projectId, environment: "dev", path: "/", name })).folder.id;
  const deniedIds = {} as Record<DeniedName, string>;
  for (const name of DENIED_NAMES) {
    const where = DENIED[name];
    const tagged = "tag" in where ? { tagIds: [tagIds[where.tag]!] } : {};
    deniedIds[name] = (await sr.secrets.create(admin, { projectId, environment: where.environment, secretPath: where.secretPath, secretName: name, secretValue: valueOf(name), ...tagged })).secret.id;
  }
  // A history for each denied secret: versions are a read path too.
  for (const name of DENIED_NAMES) {
    const where = DENIED[name];
    await sr.secrets.update(admin, { projectId, environment: where.environment, secretPath: where.secretPath, secretName: name, secretComment: `about ${valueOf(name)}` });
  }
  await sr.secrets.create(admin, { projectId, environment: "dev", secretPath: "/", secretName: "OPEN", secretValue: "open" });
  const slug = `insider-model-${n}`;
  await sr.customRoles.create(admin, { projectId, slug, name: slug, permissions: insiderRules() } as never);
  const added = await sr.memberships.addIdentity(admin, { projectId, identityId: memberId, roles: [{ role: slug, isTemporary: false }] } as never);
  const events: unknown[] = [];
  const subscription = await sr.events.subscribe(member, {
    projectId,
    register: ["secret:create", "secret:update", "secret:delete", "secret:import-mutation"].map((event) => ({ event, conditions: { secretPath: "/**" } })),
  } as never);
  void (async () => {
    try {
      for await (const event of subscription.events) events.push(event);
    } catch {
      // a subscription the member lost ends; what it delivered before is what counts
    }
  })();
  return { projectId, envIds, tagIds, folderIds, deniedIds, membershipId: (added as { identityMembership: { id: string } }).identityMembership.id, events, stop: () => subscription.cancel() };
}

/** Every read path the member has, as one text: lists of every environment there is now, and single reads of the denied names. */
async function everythingVisible(world: TestWorld, member: Actor, scene: Scene): Promise<string> {
  const { sr, admin } = world;
  const parts: unknown[] = [];
  const { environments } = await sr.environments.list(admin, { projectId: scene.projectId });
  for (const { slug } of environments as { slug: string }[]) {
    const listed = await attempt(() =>
      sr.secrets.list(member, { projectId: scene.projectId, environment: slug, secretPath: "/", recursive: true, include_imports: true, expandSecretReferences: true } as never),
    );
    if (listed.ok) parts.push(listed.value);
  }
  // Single reads by name where each denied secret lives, imports followed.
  for (const name of DENIED_NAMES) {
    const { environment, secretPath } = DENIED[name];
    const got = await attempt(() => sr.secrets.get(member, { projectId: scene.projectId, environment, secretPath, secretName: name, include_imports: true } as never));
    if (got.ok) parts.push(got.value);
  }
  for (const name of DENIED_NAMES) {
    const versions = await attempt(() => sr.secrets.listVersions(member, { secretId: scene.deniedIds[name] } as never));
    if (versions.ok) parts.push(versions.value);
  }
  parts.push(scene.events);
  return JSON.stringify(parts);
}

/** The model: the scene's denied secrets (fixed at setup: only the admin may change them) and the steps so far. */
interface Model {
  taken: string[];
}

/** The system under test: the instance, the member, and the scene of this sequence. */
interface Real {
  world: TestWorld;
  member: Actor;
  scene: Scene;
}

/** One step as a fast-check command: it runs, then the invariant is checked against the model. */
class StepCommand implements fc.AsyncCommand<Model, Real> {
  constructor(private readonly step: Step) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    model.taken.push(this.step.describe);
    const outcome = await attempt(() => this.step.run(real.world, real.member, real.scene));
    // An answer is a read path for values. Names are not judged here: every step names the secret it
    // acts on, and the rules deny reading, not editing, so an allowed edit may echo the name sent.
    const answered = outcome.ok ? JSON.stringify(outcome.value ?? null) : String((outcome.error as Error)?.message ?? outcome.error);
    const inAnswer = leaks(answered, false);
    if (inAnswer.length) throw new Error(`after ${model.taken.join(" → ")}: the answer showed ${inAnswer.join(", ")}`);
    const visible = leaks(await everythingVisible(real.world, real.member, real.scene), true);
    if (visible.length) throw new Error(`after ${model.taken.join(" → ")}: ${visible.join(", ")} became readable`);
  }
  toString = () => this.step.describe;
}

const commandsArb = fc.commands([stepArb.map((step) => new StepCommand(step))], { maxCommands: MAX_STEPS });

forEachStore("the model-based insider test", (store) => {
  let world: TestWorld;
  let member: { actor: Actor; identityId: string };
  const runs = store.name === "memory" ? RUNS : Math.max(10, Math.floor(RUNS / 20));

  beforeAll(async () => {
    world = await createTestWorld({ storage: await store.open() });
    member = await world.identityWith(["viewer"], "insider-model");
  });
  afterAll(async () => {
    await world?.close();
  });

  it(
    `no sequence of the member's operations makes a denied secret readable (${runs} sequences of up to ${MAX_STEPS} steps)`,
    async () => {
      let n = 0;
      const property = fc.asyncProperty(commandsArb, async (commands) => {
        const scene = await setUp(world, member.identityId, ++n, member.actor);
        try {
          await fc.asyncModelRun(() => ({ model: { taken: [] }, real: { world, member: member.actor, scene } }), commands);
        } finally {
          scene.stop();
        }
      });
      await fc.assert(property, { numRuns: runs, seed: SEED, endOnFailure: true });
      expect(n).toBeGreaterThanOrEqual(runs);
    },
    30 * 60_000,
  );
});
