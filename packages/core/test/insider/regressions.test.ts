import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@strongroom/core";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { answerOf, leaksIn } from "./oracle.js";
import { enrollProxy, insiderScene, type Denied, type Scene } from "./scene.js";

/**
 * Leaks the model-based insider test found (model-based.test.ts), each replayed as the short
 * sequence that showed it, with its obvious variants, on every store.
 */
forEachStore("leaks the model-based insider test found", (store) => {
  let w: TestWorld;
  let proxy: Actor;

  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open() });
    proxy = await enrollProxy(w);
  });
  afterAll(() => w?.close());

  const dev = (s: Scene, secretName: string) => ({ projectId: s.projectId, environment: "dev", secretPath: "/", secretName });
  /** What the proxy hands to the insider's own host on its own session (the scene's second session). */
  const brokered = async (s: Scene) => {
    const { decision } = await w.sr.agentProxies.resolve(proxy, { sessionToken: s.insider.sessions[1]!, host: "api.evil.test", port: 443, tls: true });
    return decision.action === "broker" ? decision.credentials.map((c) => c.value) : [];
  };
  const codeOf = (attempt: Promise<unknown>) => attempt.then(() => "ok", (error: { code?: string }) => error.code ?? String(error));

  it("versions and rollbacks by id never name a secret the caller may not describe, nor say which versions it has", async () => {
    const s = await insiderScene(w, proxy, "read");
    for (const [name, secretId] of Object.entries(s.deniedIds)) {
      const attempts = [
        () => w.sr.secrets.listVersions(s.insider.actor, { secretId } as never),
        () => w.sr.secrets.rollback(s.insider.actor, { secretId, version: 1 }),
        () => w.sr.secrets.rollback(s.insider.actor, { secretId, version: 99 }),
      ];
      for (const attempt of attempts) {
        const answer = (await answerOf(attempt)) as { error: string; message: string };
        expect(answer.error).toBe("PermissionDenied");
        expect(answer.message).not.toContain(name);
      }
    }
    // One it may read still lists and rolls back, by name.
    const { secret } = await w.sr.secrets.get(s.insider.actor, { projectId: s.projectId, environment: "dev", secretPath: "/", secretName: "OPEN_KEY" } as never);
    await w.sr.secrets.update(s.insider.actor, { projectId: s.projectId, environment: "dev", secretPath: "/", secretName: "OPEN_KEY", secretValue: "second" } as never);
    expect((await w.sr.secrets.listVersions(s.insider.actor, { secretId: secret.id } as never)).secretVersions).toHaveLength(2);
    expect((await w.sr.secrets.rollback(s.insider.actor, { secretId: secret.id, version: 1 })).secret).toMatchObject({ secretKey: "OPEN_KEY", secretValue: "open-value-OPEN_KEY", version: 3 });
  });

  for (const denied of ["read", "readValue"] as Denied[]) {
    describe(`with ${denied} denied`, () => {
      it("renaming a denied secret into the name the insider's proxied service hands out is refused (single, batch)", async () => {
        const s = await insiderScene(w, proxy, denied);
        expect(await brokered(s)).toEqual(["open-value-OPEN_KEY"]);
        // The insider empties the name its service uses, then moves a secret it may not read into it.
        await w.sr.secrets.delete(s.insider.actor, dev(s, "OPEN_KEY") as never);
        expect(await codeOf(w.sr.secrets.update(s.insider.actor, { ...dev(s, "CARD_NUMBER"), newSecretName: "OPEN_KEY" } as never))).toBe("PermissionDenied");
        const batch = w.sr.secrets.updateMany(s.insider.actor, {
          projectId: s.projectId,
          environment: "dev",
          secretPath: "/",
          secrets: [{ secretKey: "CARD_NUMBER", newSecretName: "OPEN_KEY" }],
        } as never);
        expect(await codeOf(batch)).toBe("PermissionDenied");
        expect(await brokered(s)).toEqual([]);
        const card = await w.sr.secrets.get(w.admin, dev(s, "CARD_NUMBER") as never);
        expect(card.secret.secretValue).toMatch(/^denied-value-CARD_NUMBER-/);
      });

      it("renaming what it may read into a used name, or a denied secret to an unused name, still works", async () => {
        const s = await insiderScene(w, proxy, denied);
        await w.sr.secrets.delete(s.insider.actor, dev(s, "OPEN_KEY") as never);
        await w.sr.secrets.create(s.insider.actor, { ...dev(s, "SPARE"), secretValue: "spare-value" } as never);
        expect(await codeOf(w.sr.secrets.update(s.insider.actor, { ...dev(s, "SPARE"), newSecretName: "OPEN_KEY" } as never))).toBe("ok");
        expect(await brokered(s)).toEqual(["spare-value"]);
        // Nothing hands out MINE_2: the rename moves the denied secret nowhere it was not.
        expect(await codeOf(w.sr.secrets.update(s.insider.actor, { ...dev(s, "CARD_NUMBER"), newSecretName: "MINE_2" } as never))).toBe("ok");
        // And the admin, who may read it, may put it under the service's name.
        await w.sr.secrets.delete(w.admin, dev(s, "OPEN_KEY") as never);
        expect(await codeOf(w.sr.secrets.update(w.admin, { ...dev(s, "MINE_2"), newSecretName: "OPEN_KEY" } as never))).toBe("ok");
      });

      it("attaching or detaching a tag answers nothing of a secret the insider may not describe", async () => {
        const s = await insiderScene(w, proxy, denied);
        for (const attach of [true, false]) {
          const change = attach ? w.sr.secrets.attachTags : w.sr.secrets.detachTags;
          const answer = await answerOf(() => change(s.insider.actor, { ...dev(s, "CARD_NUMBER"), tagSlugs: ["public"] } as never));
          expect(answer).toHaveProperty("secret");
          expect(leaksIn(s, answer, "write").leaks).toEqual([]);
          if (denied === "read") expect(answer).toMatchObject({ secret: { metadata: [], tags: [], secretReminderNote: null } });
        }
        // A secret it may describe keeps its full answer.
        const open = await w.sr.secrets.attachTags(s.insider.actor, { ...dev(s, "OPEN_KEY"), tagSlugs: ["public"] } as never);
        expect(open.secret).toMatchObject({ metadata: [{ key: "owner", value: "open-comment-OPEN_KEY-meta" }], tags: [{ slug: "public" }] });
      });
    });
  }
});
