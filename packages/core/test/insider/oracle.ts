import { StrongroomError } from "@strongroom/core";
import type { Principal, Scene } from "./scene.js";
import { subscribe } from "./scene.js";

/**
 * The model-based test's oracle: the test's own record of what the admin denied (the denied
 * secrets' values, comments, metadata, names and ids, tracked by id whatever the insider renames
 * them to), never the production permission engine. A leak is any of those in what a principal
 * the insider controls was answered.
 *
 * - A denied value (any version the admin wrote) never shows, as a whole string or inside one
 *   (an expanded reference, an injected credential).
 * - With `read` denied, neither does a comment or metadata value of a denied secret; and in what a
 *   read answers (lists, gets, versions, events — not the answer to a write that named the secret
 *   itself), no string equals a denied secret's id, nor its name where that secret still is.
 */
/**
 * `write`: the answer to a write that named the secret (its own name and id may come back);
 * `read`: what a read shows; `by-id`: the answer to an operation that named the secret by id only,
 * where even a refusal's message must not name it.
 */
export type AnswerKind = "read" | "write" | "by-id";

export interface Leak {
  what: "value" | "comment" | "id" | "name";
  mark: string;
  at: string;
}

/** A denied name seen in an answer, with the place the answer put it (when it said one). */
interface NameSighting {
  name: string;
  at: string;
  environment?: string;
  secretPath?: string;
}

/**
 * The leaks of a denied secret in `answer`, and the sightings of denied names still to be
 * confirmed: a name is a leak only while a denied secret carries it there (`confirmNames`) — the
 * insider may legitimately reuse a name once the admin's secret of that name is gone.
 */
export function leaksIn(scene: Scene, answer: unknown, kind: AnswerKind): { leaks: Leak[]; names: NameSighting[] } {
  const leaks: Leak[] = [];
  const names: NameSighting[] = [];
  const whole = scene.denied === "read";
  const reads = whole && kind !== "write";
  const ids = new Set(reads ? Object.values(scene.deniedIds) : []);
  const deniedNames = new Set(reads ? Object.keys(scene.deniedIds) : []);
  const comments = whole ? scene.marks.described.filter((m) => m.startsWith("denied-comment-")) : [];
  const walk = (value: unknown, at: string, place: { environment?: string; secretPath?: string }) => {
    if (typeof value === "string") {
      for (const mark of scene.marks.values) if (value.includes(mark)) leaks.push({ what: "value", mark, at });
      for (const mark of comments) if (value.includes(mark)) leaks.push({ what: "comment", mark, at });
      if (ids.has(value)) leaks.push({ what: "id", mark: value, at });
      if (deniedNames.has(value)) names.push({ name: value, at, ...place });
      else if (kind === "by-id") for (const name of deniedNames) if (value.includes(`'${name}'`)) names.push({ name, at });
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`, place));
    else if (value && typeof value === "object") {
      const o = value as Record<string, unknown>;
      const here = typeof o.environment === "string" && typeof o.secretPath === "string" ? { environment: o.environment, secretPath: o.secretPath } : place;
      for (const [key, item] of Object.entries(o)) walk(item, `${at}.${key}`, here);
    }
  };
  walk(answer, "", {});
  return { leaks, names };
}

/** Where the admin's denied secrets now are, by the admin's own reads: ground truth of the store, not of permissions. */
async function deniedPlaces(scene: Scene): Promise<{ name: string; environment: string; secretPath: string }[]> {
  const { sr, admin } = scene.w;
  const denied = new Set(Object.values(scene.deniedIds));
  const places = [];
  for (const { slug } of (await sr.environments.list(admin, { projectId: scene.projectId })).environments) {
    const { secrets } = await sr.secrets.list(admin, { projectId: scene.projectId, environment: slug, secretPath: "/", recursive: true } as never);
    for (const s of secrets) if (denied.has(s.id)) places.push({ name: s.secretKey, environment: s.environment, secretPath: s.secretPath });
  }
  return places;
}

/** The sightings that are leaks: a denied secret of that name is there (or anywhere, when the answer said no place). */
async function confirmNames(scene: Scene, sightings: NameSighting[]): Promise<Leak[]> {
  if (sightings.length === 0) return [];
  const places = await deniedPlaces(scene);
  return sightings
    .filter((n) => places.some((p) => p.name === n.name && (n.environment === undefined || (p.environment === n.environment && p.secretPath === n.secretPath))))
    .map((n) => ({ what: "name", mark: n.name, at: n.at }));
}

/** An operation's answer, or the refusal it threw as the caller sees it (code, message, details). */
export async function answerOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    // Anything but a typed refusal is a failure of its own (a crash is not an authorization answer).
    if (!(error instanceof StrongroomError) || error.code === "InternalServerError") throw error;
    return { error: error.code, message: error.message, details: error.details };
  }
}

export class LeakError extends Error {
  constructor(step: string, who: string, leaks: Leak[], answer: unknown) {
    super(`${who} learned what the admin denied after ${step}: ${JSON.stringify(leaks.slice(0, 5))}\nanswer: ${JSON.stringify(answer).slice(0, 2000)}`);
  }
}

export async function expectNoLeak(scene: Scene, who: Principal, step: string, answer: unknown, kind: AnswerKind): Promise<void> {
  const found = leaksIn(scene, answer, kind);
  const leaks = [...found.leaks, ...(await confirmNames(scene, found.names))];
  if (leaks.length) throw new LeakError(step, who.name, leaks, answer);
}

/** Hosts the insider controls: no credential of a denied secret may ever be brokered to them. */
export const INSIDER_HOSTS = [
  // Matched by the host patterns the insider's moves use: api.evil.test, *.evil.test, *.test ...
  { host: "api.evil.test", port: 443 },
  // ... and evil.test:8443.
  { host: "evil.test", port: 8443 },
] as const;

/**
 * The invariant after every step: each principal the insider controls reads every read path —
 * every environment listed recursively with imports and expanded references, the events its
 * subscription delivered, and what the agent proxy would broker to the insider's own hosts on each
 * of its sessions — and finds nothing the admin denied.
 */
export async function sweep(scene: Scene, step: string, everyone = true): Promise<void> {
  const { sr, admin } = scene.w;
  const { projectId } = scene;
  const environments = (await sr.environments.list(admin, { projectId })).environments.map((e) => e.slug);
  // Let events published by the step reach the subscriptions' queues.
  await new Promise((resolve) => setImmediate(resolve));
  // The accomplice holds at most what the insider granted it (the boundary): its reads are swept when
  // it acted or its access may have changed, and at the end of every sequence.
  for (const p of everyone ? [scene.insider, scene.accomplice] : [scene.insider]) {
    for (const environment of environments) {
      const listed = await answerOf(() =>
        sr.secrets.list(p.actor, { projectId, environment, secretPath: "/", recursive: true, includeImports: true, expandSecretReferences: true } as never),
      );
      await expectNoLeak(scene, p, `${step} (list ${environment})`, listed, "read");
    }
    if (p.log) await expectNoLeak(scene, p, `${step} (events)`, p.log.take(), "read");
    await subscribe(scene, p);
    for (const sessionToken of p.sessions) {
      for (const target of INSIDER_HOSTS) {
        const resolved = await answerOf(() => sr.agentProxies.resolve(scene.proxy, { sessionToken, ...target, tls: true }));
        await expectNoLeak(scene, p, `${step} (proxy resolve ${target.host}:${target.port})`, resolved, "read");
      }
    }
  }
}
