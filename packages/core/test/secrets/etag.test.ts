import { etagMatches, responseHeadersOf } from "@strongroom/core";
import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("list ETag", () => {
  let w: SecretsWorld;
  const etag = async (input = at(w), actor = w.admin) => responseHeadersOf(await w.sr.secrets.list(actor, input))!.etag;

  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "other" });
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "1" });
  });

  it("is stable while nothing changes and is not part of the JSON body", async () => {
    const list = await w.sr.secrets.list(w.admin, at(w));
    const first = responseHeadersOf(list)!.etag;
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

  it("matches If-None-Match lists, weak tags and *", () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc", "def"', '"abc"')).toBe(true);
    expect(etagMatches("*", '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});
