import fc from "fast-check";
import type { Actor } from "@strongroom/core";
import { answerOf, expectNoLeak, sweep, type AnswerKind } from "./oracle.js";
import { DENIED, OPEN, type Principal, type Scene } from "./scene.js";

/**
 * The insider's moves, as fast-check commands. Each one is something the insider's role lets it
 * try (rename, retag, tag deletion, environment, folder and import changes, version reads and
 * rollbacks, references, privilege and membership edits of itself and its accomplice, proxied
 * services, bundles and agent sessions, time passing), made by the insider or, after the insider
 * may have widened it, by its accomplice. Refusals are ordinary answers; after each command its
 * answer, then every read path (oracle.ts), must hold nothing the admin denied.
 */

/** What the commands learn as they go: ids of what the principals made, to aim later moves at. */
export interface Model {
  services: string[];
  bundles: string[];
  imports: string[];
  /** Additional privileges granted (to either principal). */
  privileges: string[];
}

export const emptyModel = (): Model => ({ services: [], bundles: [], imports: [], privileges: [] });

type Exec = (scene: Scene, model: Model, who: Principal) => Promise<unknown>;

/** How each kind of move was answered (`ok` or the refusal's code), for INSIDER_STATS=1: a sequence of refusals proves little. */
export const outcomes = new Map<string, Map<string, number>>();

function count(label: string, answer: unknown): void {
  const kind = label.split(" ").slice(0, label.startsWith("set ") || label.startsWith("change ") ? 1 : 2).join(" ").replace(/[#:].*$/, "");
  const code = answer && typeof answer === "object" && "error" in answer ? String((answer as { error: unknown }).error) : "ok";
  const byCode = outcomes.get(kind) ?? new Map<string, number>();
  byCode.set(code, (byCode.get(code) ?? 0) + 1);
  outcomes.set(kind, byCode);
}

class Step implements fc.AsyncCommand<Model, Scene> {
  constructor(
    private readonly label: string,
    private readonly who: "insider" | "accomplice",
    private readonly kind: AnswerKind,
    private readonly exec: Exec,
    /** Whether the move may change what the accomplice holds (grants, roles, time). */
    private readonly touchesAccess = false,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, scene: Scene): Promise<void> {
    const who = scene[this.who];
    const answer = await answerOf(() => this.exec(scene, model, who));
    count(this.label, answer);
    await expectNoLeak(scene, who, this.toString(), answer, this.kind);
    await sweep(scene, this.toString(), this.touchesAccess || this.who === "accomplice");
  }
  toString(): string {
    return `${this.who}: ${this.label}`;
  }
}

// ---- The pools moves draw from, small so that moves meet: a rename lands on the name a credential
// uses, an import on a folder holding a denied secret. Names the insider writes never equal a
// denied name (oracle.ts).

/** A secret by where it is: the admin's (denied and open) and the insider's own. */
interface Spot {
  environment: string;
  secretPath: string;
}
interface Target extends Spot {
  name: string;
}
const SPOTS: Spot[] = [
  { environment: "dev", secretPath: "/" },
  { environment: "dev", secretPath: "/" },
  { environment: "dev", secretPath: "/vault" },
  { environment: "dev", secretPath: "/vault/deep" },
  { environment: "dev", secretPath: "/apps" },
  { environment: "staging", secretPath: "/" },
  { environment: "staging", secretPath: "/apps" },
  { environment: "prod", secretPath: "/" },
  { environment: "qa", secretPath: "/" },
];
const ENVS = ["dev", "staging", "prod", "qa"];
const FOLDER_NAMES = ["vault", "deep", "apps", "open"];
const TARGETS: Target[] = [
  ...DENIED.map((s) => ({ environment: s.environment, secretPath: s.secretPath, name: s.name })),
  ...OPEN.map((s) => ({ environment: s.environment, secretPath: s.secretPath, name: s.name })),
  { environment: "dev", secretPath: "/", name: "OPEN_KEY" },
  { environment: "dev", secretPath: "/", name: "MINE" },
];
const NEW_NAMES = ["OPEN_KEY", "APP_KEY", "MINE", "X_LIVE_Y"];
const VALUES = [
  "mine",
  "${CARD_NUMBER}",
  "${STRIPE_LIVE_KEY}",
  "${prod.PROD_DB_URL}",
  "${dev.vault.VAULT_MASTER}",
  "${dev.vault.deep.DEEP_SEAL}",
  "${dev.apps.APP_PCI_TOKEN}",
  "${staging.apps.STAGE_CARD}",
  "${OPEN_KEY}-${MINE}",
];
const TAGS = ["pci", "public", "extra"];
const HOSTS = ["api.evil.test", "*.evil.test", "evil.test:8443", "api.payments.test", "*.test", "*.com"];
const ROLES = ["admin", "member", "viewer", "no-access", "insider", "read-all"];

const env = fc.constantFrom(...ENVS);
const spot = fc.constantFrom(...SPOTS);
const target = fc.constantFrom(...TARGETS);
const newName = fc.constantFrom(...NEW_NAMES);
const value = fc.constantFrom(...VALUES);
const tags = fc.subarray(TAGS);
const pick = fc.nat();
const who = fc.constantFrom<"insider" | "accomplice">("insider", "insider", "accomplice");

/** The insider's own reading rights, deny for deny: it holds them, so it may hand them on; `without` leaves one deny out. */
const mirror = (without?: number) => [
  { subject: "secrets", action: ["read"] },
  ...[{ secretTags: { $in: ["pci"] } }, { environment: "prod" }, { secretName: { $glob: "*_LIVE_*" } }, { secretPath: { $glob: "/vault/**" } }]
    .filter((_, i) => i !== without)
    .map((conditions) => ({ subject: "secrets", action: ["read"], inverted: true, conditions })),
];

/** Secret rules the insider may try to hand out: some it holds, some it does not. */
const RULES = [
  mirror(),
  mirror(),
  mirror(0),
  mirror(1),
  mirror(2),
  mirror(3),
  [{ subject: "tags", action: ["read"] }],
  [{ subject: "secrets", action: ["describeSecret"], conditions: { environment: "staging", secretPath: "/" } }, ...mirror().slice(1)],
  [{ subject: "secrets", action: ["read"] }],
  [{ subject: "secrets", action: ["read"], conditions: { environment: "dev" } }],
  [{ subject: "secrets", action: ["readValue", "describeSecret"], conditions: { secretTags: { $in: ["pci"] } } }],
  [{ subject: "secrets", action: ["read"], conditions: { secretPath: { $glob: "/vault/**" } } }],
  [{ subject: "secrets", action: ["read"], conditions: { secretName: { $glob: "*" } } }],
  [{ subject: "secrets", action: ["read"], conditions: { environment: "staging" } }],
  [{ subject: "secrets", action: ["read"], conditions: { environment: { $ne: "dev" } } }],
  [{ subject: "secrets", action: ["read"], conditions: { secretName: { $glob: "OPEN_*" } } }],
  [{ subject: "secrets", action: ["read"], inverted: true, conditions: { environment: "dev" } }],
  [{ subject: "secrets", action: ["edit"], conditions: { secretTags: { $in: ["public"] } } }],
];
const rules = fc.constantFrom(...RULES);

/** Permanent, or temporary with a start in the past, now, or the future. */
const window = fc.oneof(
  fc.constant({ isTemporary: false as const }),
  fc.record({ isTemporary: fc.constant(true as const), range: fc.constantFrom("30m", "1h", "7d"), startOffsetMin: fc.integer({ min: -120, max: 120 }) }),
);

const at = (model: Model, list: keyof Model, i: number) => model[list][i % Math.max(1, model[list].length)];
const pickOf = <T>(list: readonly T[], i: number) => list[i % list.length]!;

interface Window {
  isTemporary: boolean;
  range?: string;
  startOffsetMin?: number;
}

function temporaryFields(scene: Scene, w: Window) {
  if (!w.isTemporary) return { isTemporary: false as const };
  const start = new Date(scene.w.clock.now().getTime() + (w.startOffsetMin ?? 0) * 60_000).toISOString();
  return { isTemporary: true as const, temporaryMode: "relative" as const, temporaryRange: w.range!, temporaryAccessStartTime: start };
}

const roleSlug = (scene: Scene, role: string) => (role === "insider" ? scene.roles.insider : role === "read-all" ? scene.roles.readAll : role);
const principalOf = (scene: Scene, whom: "insider" | "accomplice") => scene[whom];
const tagIdsOf = async (scene: Scene, slugs: readonly string[]) => {
  const all = (await scene.w.sr.tags.list(scene.w.admin, { projectId: scene.projectId })).workspaceTags as { id: string; slug: string }[];
  return slugs.flatMap((slug) => all.filter((t) => t.slug === slug).map((t) => t.id));
};
const envIdOf = async (scene: Scene, slug: string) =>
  (await scene.w.sr.environments.list(scene.w.admin, { projectId: scene.projectId })).environments.find((e) => e.slug === slug)?.id ?? "missing";
const folderIdOf = async (scene: Scene, environment: string, folderPath: string) => {
  const envId = await envIdOf(scene, environment);
  return (await scene.w.storage.tables.secretFolders.findOne({ projectId: scene.projectId, envId, path: folderPath }))?.id ?? "missing";
};
const secretAt = (scene: Scene, t: Target) => ({ projectId: scene.projectId, environment: t.environment, secretPath: t.secretPath, secretName: t.name });
const place = (t: Target) => `${t.environment}:${t.secretPath === "/" ? "" : t.secretPath}/${t.name}`;
const as = (p: Principal): Actor => p.actor;

const step = (label: string, by: "insider" | "accomplice", kind: AnswerKind, exec: Exec) => new Step(label, by, kind, exec);
const accessStep = (label: string, by: "insider" | "accomplice", exec: Exec) => new Step(label, by, "write", exec, true);

/** Every move, as an arbitrary of commands. */
export function insiderCommands(): fc.Arbitrary<fc.AsyncCommand<Model, Scene>>[] {
  return [
    // ---- Secrets: the object as it is and as it will be.
    fc.tuple(who, target, newName).map(([by, t, to]) =>
      step(`rename ${place(t)} → ${to}`, by, "write", (s, _m, w) => s.w.sr.secrets.update(as(w), { ...secretAt(s, t), newSecretName: to } as never)),
    ),
    // Taking a name's place: what was there goes, another secret is renamed into it.
    fc.tuple(who, target, target).map(([by, t, into]) =>
      step(`replace ${place(into)} with ${t.name}`, by, "write", async (s, _m, w) => {
        const removed = await answerOf(() => s.w.sr.secrets.delete(as(w), secretAt(s, into) as never));
        await expectNoLeak(s, w, `delete ${place(into)}`, removed, "write");
        return s.w.sr.secrets.update(as(w), { ...secretAt(s, { ...into, name: t.name }), newSecretName: into.name } as never);
      }),
    ),
    fc.tuple(who, target, tags).map(([by, t, slugs]) =>
      step(`retag ${place(t)} [${slugs}]`, by, "write", async (s, _m, w) => s.w.sr.secrets.update(as(w), { ...secretAt(s, t), tagIds: await tagIdsOf(s, slugs) } as never)),
    ),
    fc.tuple(who, target, fc.constantFrom(...TAGS), fc.boolean()).map(([by, t, tag, attach]) =>
      step(`${attach ? "attach" : "detach"} ${tag} on ${place(t)}`, by, "write", (s, _m, w) =>
        (attach ? s.w.sr.secrets.attachTags : s.w.sr.secrets.detachTags)(as(w), { ...secretAt(s, t), tagSlugs: [tag] } as never),
      ),
    ),
    fc.tuple(who, target, value).map(([by, t, v]) =>
      step(`set ${place(t)} = ${v}`, by, "write", (s, _m, w) => s.w.sr.secrets.update(as(w), { ...secretAt(s, t), secretValue: v, secretComment: "mine" } as never)),
    ),
    fc.tuple(who, spot, newName, value, tags).map(([by, at, name, v, slugs]) =>
      step(`create ${place({ ...at, name })} = ${v} [${slugs}]`, by, "write", async (s, _m, w) =>
        s.w.sr.secrets.create(as(w), { ...secretAt(s, { ...at, name }), secretValue: v, tagIds: await tagIdsOf(s, slugs) } as never),
      ),
    ),
    fc.tuple(who, target).map(([by, t]) => step(`delete ${place(t)}`, by, "write", (s, _m, w) => s.w.sr.secrets.delete(as(w), secretAt(s, t) as never))),
    fc.tuple(who, target, fc.constantFrom(...TARGETS), newName, tags).map(([by, a, b, to, slugs]) =>
      step(`batch in ${a.environment}:${a.secretPath} [${a.name} value, ${b.name} → ${to} [${slugs}]]`, by, "write", async (s, _m, w) =>
        s.w.sr.secrets.updateMany(as(w), {
          projectId: s.projectId,
          environment: a.environment,
          secretPath: a.secretPath,
          mode: "upsert",
          secrets: [
            { secretKey: a.name, secretValue: "batch" },
            { secretKey: b.name, newSecretName: to, tagIds: await tagIdsOf(s, slugs) },
          ],
        } as never),
      ),
    ),
    fc.tuple(who, target).map(([by, t]) =>
      step(`batch delete ${place(t)}`, by, "write", (s, _m, w) =>
        s.w.sr.secrets.deleteMany(as(w), { projectId: s.projectId, environment: t.environment, secretPath: t.secretPath, secrets: [{ secretKey: t.name }] } as never),
      ),
    ),

    // ---- History: versions by name and by id, rollbacks.
    fc.tuple(who, target, fc.integer({ min: 1, max: 4 }), fc.boolean()).map(([by, t, version, expand]) =>
      step(`get ${place(t)} v${version}${expand ? " expanded" : ""}`, by, "read", (s, _m, w) =>
        s.w.sr.secrets.get(as(w), { ...secretAt(s, t), version, includeImports: true, expandSecretReferences: expand } as never),
      ),
    ),
    fc.tuple(who, spot, fc.constantFrom(...TARGETS)).map(([by, at, t]) =>
      step(`get ${t.name} in ${at.environment}:${at.secretPath} through imports`, by, "read", (s, _m, w) =>
        s.w.sr.secrets.get(as(w), { ...secretAt(s, { ...at, name: t.name }), includeImports: true, expandSecretReferences: true } as never),
      ),
    ),
    fc.tuple(who, pick).map(([by, i]) =>
      step(`list versions of secret #${i}`, by, "by-id", (s, _m, w) => s.w.sr.secrets.listVersions(as(w), { secretId: pickOf(s.secretIds, i) } as never)),
    ),
    fc.tuple(who, pick, fc.integer({ min: 1, max: 3 })).map(([by, i, version]) =>
      step(`roll back secret #${i} to v${version}`, by, "by-id", (s, _m, w) => s.w.sr.secrets.rollback(as(w), { secretId: pickOf(s.secretIds, i), version })),
    ),

    // ---- Tags.
    fc.tuple(who, fc.constantFrom(...TAGS)).map(([by, tag]) =>
      step(`delete tag ${tag}`, by, "write", async (s, _m, w) => {
        const [tagId] = await tagIdsOf(s, [tag]);
        return s.w.sr.tags.delete(as(w), { projectId: s.projectId, tagId: tagId ?? "missing" });
      }),
    ),
    fc.tuple(who, fc.constantFrom(...TAGS)).map(([by, tag]) =>
      step(`create tag ${tag}`, by, "write", (s, _m, w) => s.w.sr.tags.create(as(w), { projectId: s.projectId, slug: tag, name: tag })),
    ),

    // ---- Environments: rename (slug), reorder, create, delete.
    fc.tuple(who, env, fc.option(env, { nil: undefined }), fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined })).map(([by, e, slug, position]) =>
      step(`update environment ${e} slug=${slug} position=${position}`, by, "write", async (s, _m, w) =>
        s.w.sr.environments.update(as(w), { projectId: s.projectId, id: await envIdOf(s, e), ...(slug ? { slug, name: slug } : { name: `${e} renamed` }), position } as never),
      ),
    ),
    fc.tuple(who, env).map(([by, e]) =>
      step(`create environment ${e}`, by, "write", (s, _m, w) => s.w.sr.environments.create(as(w), { projectId: s.projectId, name: e, slug: e } as never)),
    ),
    fc.tuple(who, env).map(([by, e]) =>
      step(`delete environment ${e}`, by, "write", async (s, _m, w) => s.w.sr.environments.delete(as(w), { projectId: s.projectId, id: await envIdOf(s, e) } as never)),
    ),

    // ---- Folders: create, rename in place, delete.
    fc.tuple(who, spot, fc.constantFrom(...FOLDER_NAMES)).map(([by, at, name]) =>
      step(`create folder ${at.environment}:${at.secretPath}/${name}`, by, "write", (s, _m, w) =>
        s.w.sr.folders.create(as(w), { projectId: s.projectId, environment: at.environment, path: at.secretPath, name } as never),
      ),
    ),
    fc.tuple(who, spot, fc.constantFrom(...FOLDER_NAMES)).map(([by, at, name]) =>
      step(`rename folder ${at.environment}:${at.secretPath} → ${name}`, by, "write", async (s, _m, w) =>
        s.w.sr.folders.update(as(w), { projectId: s.projectId, environment: at.environment, folderId: await folderIdOf(s, at.environment, at.secretPath), name } as never),
      ),
    ),
    fc.tuple(who, spot).map(([by, at]) =>
      step(`delete folder ${at.environment}:${at.secretPath}`, by, "write", (s, _m, w) =>
        s.w.sr.folders.delete(as(w), { projectId: s.projectId, environment: at.environment, path: at.secretPath } as never),
      ),
    ),

    // ---- Imports: show another folder's secrets in one the insider reads.
    fc.tuple(who, spot, spot).map(([by, into, from]) =>
      step(`import ${from.environment}:${from.secretPath} into ${into.environment}:${into.secretPath}`, by, "write", async (s, m, w) => {
        const made = await s.w.sr.secretImports.create(as(w), {
          projectId: s.projectId,
          environment: into.environment,
          path: into.secretPath,
          import: { environment: from.environment, path: from.secretPath },
        } as never);
        m.imports.push((made as { secretImport: { id: string } }).secretImport.id);
        return made;
      }),
    ),
    fc.tuple(who, pick, spot).map(([by, i, from]) =>
      step(`repoint import #${i} to ${from.environment}:${from.secretPath}`, by, "write", (s, m, w) =>
        s.w.sr.secretImports.update(as(w), {
          projectId: s.projectId,
          secretImportId: at(m, "imports", i) ?? "missing",
          import: { environment: from.environment, path: from.secretPath },
        } as never),
      ),
    ),

    // ---- Privileges and memberships: of the accomplice (bounded by what the insider holds) and of itself.
    fc.tuple(who, fc.constantFrom<"insider" | "accomplice">("accomplice", "accomplice", "insider"), rules, window).map(([by, whom, r, w]) =>
      accessStep(`grant ${whom} ${JSON.stringify(r)} ${JSON.stringify(w)}`, by, async (s, m, actor) => {
        const made = await s.w.sr.privilegesV2.create(as(actor), { projectId: s.projectId, identityId: principalOf(s, whom).identityId, permissions: r, type: temporaryFields(s, w) } as never);
        m.privileges.push(made.privilege.id);
        return made;
      }),
    ),
    fc.tuple(who, pick, fc.option(rules, { nil: undefined }), window).map(([by, i, r, w]) =>
      accessStep(`change privilege #${i} ${JSON.stringify(r)} ${JSON.stringify(w)}`, by, (s, m, actor) =>
        s.w.sr.privilegesV2.update(as(actor), { id: at(m, "privileges", i) ?? "missing", ...(r ? { permissions: r } : {}), type: temporaryFields(s, w) } as never),
      ),
    ),
    fc.tuple(who, fc.constantFrom<"insider" | "accomplice">("accomplice", "accomplice", "insider"), fc.constantFrom(...ROLES), window).map(([by, whom, role, w]) =>
      accessStep(`set ${whom}'s roles to ${role} ${JSON.stringify(w)}`, by, (s, _m, actor) => {
        const roles = [{ role: roleSlug(s, role), ...temporaryFields(s, w) }];
        // A membership keeps one permanent role; the insider's own stays beside a temporary one.
        if (w.isTemporary) roles.push({ role: s.roles.insider, isTemporary: false } as never);
        return s.w.sr.memberships.updateIdentity(as(actor), { projectId: s.projectId, identityId: principalOf(s, whom).identityId, roles } as never);
      }),
    ),

    // ---- Proxied services, bundles and agent sessions: where a credential goes.
    // A service of its own, bundled for itself with a session open: its credential goes to the insider's host.
    fc.tuple(who, fc.constantFrom(...HOSTS), target).map(([by, host, t]) =>
      step(`create service ${host} using ${place(t)}`, by, "write", async (s, m, w) => {
        const made = await s.w.sr.proxiedServices.create(as(w), {
          projectId: s.projectId,
          environment: t.environment,
          secretPath: t.secretPath,
          name: `svc-${m.services.length}`,
          hostPattern: host,
          credentials: [{ headerName: "X-Key", secretKey: t.name }],
        } as never);
        m.services.push(made.service.id);
        const bundle = await s.w.sr.accessBundles.create(as(w), { projectId: s.projectId, name: `own-${m.services.length}`, serviceIds: [made.service.id], grants: [{ type: "identity", id: w.identityId }] } as never);
        w.sessions.push((await s.w.sr.agentSessions.create(as(w), { bundleId: bundle.bundle.id, ttl: 24 * 60 * 60 })).token);
        return made;
      }),
    ),
    fc.tuple(who, pick, fc.option(fc.constantFrom(...HOSTS), { nil: undefined }), fc.option(target, { nil: undefined }), fc.option(fc.boolean(), { nil: undefined })).map(
      ([by, i, host, key, isEnabled]) =>
        step(`change service #${i} host=${host} key=${key} enabled=${isEnabled}`, by, "write", (s, m, w) =>
          s.w.sr.proxiedServices.update(as(w), {
            serviceId: i % 3 === 0 ? s.adminServiceId : i % 3 === 1 ? s.insiderServiceId : (at(m, "services", i) ?? s.adminServiceId),
            ...(host ? { hostPattern: host } : {}),
            ...(key ? { credentials: [{ headerName: "X-Key", secretKey: key.name }] } : {}),
            ...(isEnabled === undefined ? {} : { isEnabled }),
          } as never),
        ),
    ),
    fc.tuple(who, fc.subarray([0, 1, 2, 3]), fc.boolean()).map(([by, picks, admins]) =>
      step(`bundle services ${picks}${admins ? " with the admin's" : ""}`, by, "write", async (s, m, w) => {
        const serviceIds = [...new Set([...picks.flatMap((i) => at(m, "services", i) ?? []), ...(admins ? [s.adminServiceId] : [])])];
        const made = await s.w.sr.accessBundles.create(as(w), {
          projectId: s.projectId,
          name: `bundle-${m.bundles.length}-${s.w.clock.now().getTime()}`,
          serviceIds,
          grants: [
            { type: "identity", id: s.insider.identityId },
            { type: "identity", id: s.accomplice.identityId },
          ],
        } as never);
        m.bundles.push(made.bundle.id);
        return made;
      }),
    ),
    fc.tuple(who, pick, fc.subarray([0, 1, 2, 3])).map(([by, i, picks]) =>
      step(`rebundle #${i} with services ${picks}`, by, "write", (s, m, w) =>
        s.w.sr.accessBundles.update(as(w), {
          bundleId: i % 2 === 0 ? s.adminBundleId : (at(m, "bundles", i) ?? s.adminBundleId),
          serviceIds: [...new Set(picks.flatMap((p) => at(m, "services", p) ?? []))].concat(i % 4 === 0 ? [s.adminServiceId] : []),
        } as never),
      ),
    ),
    fc.tuple(who, pick).map(([by, i]) =>
      step(`open a session on bundle #${i}`, by, "write", async (s, m, w) => {
        const bundleId = i % 2 === 0 ? s.adminBundleId : (at(m, "bundles", i) ?? s.adminBundleId);
        const made = await s.w.sr.agentSessions.create(as(w), { bundleId, ttl: 24 * 60 * 60 });
        w.sessions.push(made.token);
        return { session: made.session };
      }),
    ),

    // ---- Time: temporary grants start and lapse.
    fc.integer({ min: 1, max: 180 }).map((minutes) =>
      accessStep(`${minutes} minutes pass`, "insider", async (s) => {
        s.w.clock.advance(minutes * 60_000);
        return null;
      }),
    ),
  ];
}
