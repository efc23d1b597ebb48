import { StrongroomError } from "@strongroom/core";
import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("secret tags (POST /api/v3/secrets/tags/{secretName})", () => {
  let w: SecretsWorld;
  const tagsInput = (tagSlugs: string[]) => ({ projectSlug: w.projectSlug, environment: "dev", secretPath: "/", type: "shared" as const, secretName: "DB_URL", tagSlugs });

  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "prod-critical", name: "Critical", color: "#e11d48" });
    await w.sr.tags.create(w.admin, { workspaceId: w.projectId, slug: "db" });
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "DB_URL", secretValue: "postgres://secret-host/db", secretComment: "primary" });
    w.events.length = 0;
  });

  it("attaches tags and answers with the ciphertext view, never the plaintext", async () => {
    const { secret } = await w.sr.secrets.attachTags(w.admin, tagsInput(["prod-critical", "db"]));
    expect(secret).toMatchObject({ algorithm: "aes-256-gcm", keyEncoding: "base64", type: "shared", version: 2, userId: null });
    expect(secret.tags.map((t) => t.slug)).toEqual(["prod-critical", "db"]);
    expect(secret.tags[0]).toMatchObject({ name: "Critical", color: "#e11d48" });
    for (const field of ["Key", "Value", "Comment"]) {
      const iv = Buffer.from(secret[`secret${field}IV` as "secretKeyIV"], "base64");
      const tag = Buffer.from(secret[`secret${field}Tag` as "secretKeyTag"], "base64");
      expect(iv).toHaveLength(12);
      expect(tag).toHaveLength(16);
    }
    expect(JSON.stringify(secret)).not.toContain("secret-host");
    expect(JSON.stringify(secret)).not.toContain("DB_URL");
    expect(w.events.map((e) => e.eventType)).toEqual(["secret:update"]);
    const { secrets } = await w.sr.secrets.list(w.admin, { ...at(w), tagSlugs: "db" });
    expect(secrets.map((s) => s.secretKey)).toEqual(["DB_URL"]);
  });

  it("an unknown tag slug is 404 and a tag already attached is 400", async () => {
    await expect(w.sr.secrets.attachTags(w.admin, tagsInput(["nope"]))).rejects.toMatchObject({ code: "NotFound" });
    await w.sr.secrets.attachTags(w.admin, tagsInput(["db"]));
    const again = await w.sr.secrets.attachTags(w.admin, tagsInput(["prod-critical", "db"])).catch((e: StrongroomError) => e);
    expect(again).toMatchObject({ code: "BadRequest" });
    expect((again as Error).message).toContain("db");
    const { secret } = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "DB_URL" });
    expect(secret.tags.map((t) => t.slug)).toEqual(["db"]);
  });

  it("an unknown secret is 404", async () => {
    await expect(w.sr.secrets.attachTags(w.admin, { ...tagsInput(["db"]), secretName: "GHOST" })).rejects.toMatchObject({ code: "NotFound" });
  });

  it("detaches tags; deleting a tag detaches it everywhere", async () => {
    await w.sr.secrets.attachTags(w.admin, tagsInput(["prod-critical", "db"]));
    const { secret } = await w.sr.secrets.detachTags(w.admin, tagsInput(["db"]));
    expect(secret.tags.map((t) => t.slug)).toEqual(["prod-critical"]);
    await expect(w.sr.secrets.detachTags(w.admin, tagsInput(["db"]))).rejects.toMatchObject({ code: "BadRequest" });
    const { workspaceTags } = await w.sr.tags.list(w.admin, { projectId: w.projectId });
    const critical = workspaceTags.find((t) => t.slug === "prod-critical")!;
    await w.sr.tags.delete(w.admin, { projectId: w.projectId, tagId: critical.id });
    const after = await w.sr.secrets.get(w.admin, { ...at(w), secretName: "DB_URL" });
    expect(after.secret.tags).toEqual([]);
  });

  it("tag slugs are unique per project", async () => {
    await expect(w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "db" })).rejects.toMatchObject({ code: "BadRequest" });
  });
});
