import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

/**
 * The HTTP adapter sends a list's ETag as a hash of its JSON text; these tests hold the list to
 * what makes that tag honest: its text is stable while nothing changes, and changes exactly when
 * what the caller may see does.
 */
describe("list answers for ETags", () => {
  let w: SecretsWorld;
  const tagOf = (value: unknown) => `"${createHash("sha256").update(JSON.stringify(value)).digest("base64url")}"`;
  const etag = async (input = at(w), actor = w.admin) => tagOf(await w.sr.secrets.list(actor, input));

  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "other" });
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "1" });
  });

  it("is stable while nothing changes and carries nothing but the body", async () => {
    const list = await w.sr.secrets.list(w.admin, at(w));
    const first = tagOf(list);
    expect(first).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(JSON.parse(JSON.stringify(list))).toEqual({ secrets: list.secrets, imports: [] });
    expect(await etag()).toBe(first);
  });

  it("changes when a listed secret changes and only then", async () => {
    const before = await etag();
    await w.sr.secrets.create(w.admin, { ...at(w, "dev", "/other"), secretName: "ELSEWHERE", secretValue: "x" });
    await w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "A", secretValue: "x" });
    expect(await etag()).toBe(before);
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "2" });
    const afterUpdate = await etag();
    expect(afterUpdate).not.toBe(before);
    await w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "2" });
    expect(await etag()).toBe(afterUpdate);
    await w.sr.secrets.delete(w.admin, { ...at(w), secretName: "A" });
    expect(await etag()).not.toBe(afterUpdate);
  });

  it("differs between callers who see different content", async () => {
    const describer = await w.userWith([await w.role("describer", [{ subject: "secrets", action: "describeSecret" }])]);
    expect(await etag(at(w), describer)).not.toBe(await etag());
  });
});
