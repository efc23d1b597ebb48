import { createIdentity, createProject, type ApiResponse, type TestApi, type World } from "../../src/testing/harness.js";

/**
 * The insider's scene for the authorization suites (issue 15): a project where an admin keeps
 * secrets that a restricted member may not read — by tag (`pci`), environment (`prod`), name
 * (`*_LIVE_*`) and path (`/vault/**`) — and that member, a machine identity with ordinary rights
 * on everything else (secrets, folders, imports, tags, environments, events).
 */

/** What the deny rules take away: everything about reading, or only the value. */
export type Denied = "read" | "readValue";

export const DENIED_SECRETS = {
  CARD: { environment: "dev", secretPath: "/", tag: "pci" },
  API_LIVE_KEY: { environment: "dev", secretPath: "/" },
  PROD_DB: { environment: "prod", secretPath: "/" },
  VAULT_KEY: { environment: "dev", secretPath: "/vault" },
} as const;

export const valueOf = (name: string) => `value-of-${name}`;

export function insiderRules(denied: Denied) {
  const deny = (conditions: Record<string, unknown>) => ({ subject: "secrets", action: denied, inverted: true, conditions });
  const crud = ["read", "create", "edit", "delete"];
  return [
    { subject: "secrets", action: crud },
    { subject: "secret-folders", action: crud },
    { subject: "secret-imports", action: crud },
    { subject: "tags", action: crud },
    { subject: "environments", action: crud },
    { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"] },
    deny({ secretTags: { $in: ["pci"] } }),
    deny({ environment: "prod" }),
    deny({ secretName: { $glob: "*_LIVE_*" } }),
    deny({ secretPath: { $glob: "/vault/**" } }),
  ];
}

export interface Scene {
  projectId: string;
  envIds: Record<string, string>;
  tagIds: Record<string, string>;
  /** The restricted member's token. */
  insider: string;
  admin: string;
  /** As the admin; throws unless 200. */
  ok(method: string, path: string, body?: unknown): Promise<any>;
  /** As the insider. */
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** The secret's value as the admin sees it, or undefined when it does not exist there. */
  adminValue(name: string, environment: string, secretPath?: string): Promise<string | undefined>;
}

export const query = (params: Record<string, string | number | boolean>) =>
  `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;

let scenes = 0;

/**
 * A fresh project with the denied secrets, `OPEN` (readable by everyone), tags `pci` and `public`,
 * and a member holding a custom role of `rules` (default: insiderRules(denied)).
 */
export async function insiderScene(api: TestApi, world: World, denied: Denied = "read", rules: unknown[] = insiderRules(denied)): Promise<Scene> {
  const n = ++scenes;
  const admin = world.admin.token;
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api.request(method, path, { token: admin, body });
    if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const project = await createProject(api, admin, { projectName: `Insider ${n}` });
  const projectId = project.id;
  const envIds = Object.fromEntries(project.environments.map((e) => [e.slug, e.id]));
  const tagIds: Record<string, string> = {};
  for (const slug of ["pci", "public"]) tagIds[slug] = (await ok("POST", `/api/v1/workspace/${projectId}/tags`, { slug, name: slug })).workspaceTag.id;
  await ok("POST", "/api/v1/folders", { projectId, environment: "dev", name: "vault" });
  const create = (name: string, environment: string, secretPath: string, extra: Record<string, unknown> = {}) =>
    ok("POST", `/api/v4/secrets/${name}`, { projectId, environment, secretPath, secretValue: valueOf(name), ...extra });
  await create("OPEN", "dev", "/");
  await create("CARD", "dev", "/", { tagIds: [tagIds.pci], secretComment: "card comment", secretMetadata: [{ key: "owner", value: "payments" }] });
  await create("API_LIVE_KEY", "dev", "/");
  await create("PROD_DB", "prod", "/");
  await create("VAULT_KEY", "dev", "/vault");

  const role = await ok("POST", `/api/v1/projects/${projectId}/roles`, { slug: `insider-${n}`, name: `Insider ${n}`, permissions: rules });
  const bot = await createIdentity(api, admin, world.admin.orgId, `insider-${n}`);
  await ok("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { roles: [{ role: role.role.slug, isTemporary: false }] });
  return {
    projectId,
    envIds,
    tagIds,
    insider: bot.token,
    admin,
    ok,
    call: (method, path, body) => api.request(method, path, { token: bot.token, body }),
    async adminValue(name, environment, secretPath = "/") {
      const res = await api.request("GET", `/api/v4/secrets/${name}${query({ projectId, environment, secretPath })}`, { token: admin });
      return res.status === 200 ? (res.body.secret.secretValue as string) : undefined;
    },
  };
}

/** Every value of a denied secret the insider can find by listing every environment recursively (with imports and references). */
export async function valuesVisibleTo(api: TestApi, scene: Scene): Promise<string[]> {
  const seen: string[] = [];
  for (const environment of Object.keys(scene.envIds)) {
    const res = await scene.call(
      "GET",
      `/api/v4/secrets${query({ projectId: scene.projectId, environment, secretPath: "/", recursive: true, include_imports: true, expandSecretReferences: true })}`,
    );
    if (res.status !== 200) continue;
    const secrets = [...res.body.secrets, ...res.body.imports.flatMap((i: { secrets: unknown[] }) => i.secrets)] as { secretValue: string }[];
    for (const s of secrets) for (const name of Object.keys(DENIED_SECRETS)) if (s.secretValue.includes(valueOf(name))) seen.push(name);
  }
  return seen;
}
