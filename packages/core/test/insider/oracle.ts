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
 *   itself), no string equals a denied secret's name or id.
 */
export type AnswerKind = "read" | "write";

export interface Leak {
  what: "value" | "comment" | "name or id";
  mark: string;
  at: string;
}

/** Every leak of a denied secret in `answer`. */
export function leaksIn(scene: Scene, answer: unknown, kind: AnswerKind): Leak[] {
  const leaks: Leak[] = [];
  const whole = scene.denied === "read";
  const names = new Set(whole && kind === "read" ? scene.marks.described.filter((m) => !m.startsWith("denied-comment-")) : []);
  const comments = whole ? scene.marks.described.filter((m) => m.startsWith("denied-comment-")) : [];
  const walk = (value: unknown, at: string) => {
    if (typeof value === "string") {
      for (const mark of scene.marks.values) if (value.includes(mark)) leaks.push({ what: "value", mark, at });
      for (const mark of comments) if (value.includes(mark)) leaks.push({ what: "comment", mark, at });
      if (names.has(value)) leaks.push({ what: "name or id", mark: value, at });
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${at}[${i}]`));
    else if (value && typeof value === "object") for (const [key, item] of Object.entries(value)) walk(item, `${at}.${key}`);
  };
  walk(answer, "");
  return leaks;
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

export function expectNoLeak(scene: Scene, who: Principal, step: string, answer: unknown, kind: AnswerKind): void {
  const leaks = leaksIn(scene, answer, kind);
  if (leaks.length) throw new LeakError(step, who.name, leaks, answer);
}

/** Hosts the insider controls: no credential of a denied secret may ever be brokered to them. */
export const INSIDER_HOSTS = [
  { host: "api.evil.test", port: 443 },
  { host: "x.evil.test", port: 443 },
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
      expectNoLeak(scene, p, `${step} (list ${environment})`, listed, "read");
    }
    if (p.log) expectNoLeak(scene, p, `${step} (events)`, p.log.take(), "read");
    await subscribe(scene, p);
    for (const sessionToken of p.sessions) {
      for (const target of INSIDER_HOSTS) {
        const resolved = await answerOf(() => sr.agentProxies.resolve(scene.proxy, { sessionToken, ...target, tls: true }));
        expectNoLeak(scene, p, `${step} (proxy resolve ${target.host}:${target.port})`, resolved, "read");
      }
    }
  }
}
