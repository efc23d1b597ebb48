import { beforeEach, describe, expect, it } from "vitest";
import { createStrongroom, NOT_MODIFIED, operations, type Actor, type Revalidation, type Strongroom } from "@strongroom/core";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

/**
 * A list's revision (its ETag over HTTP) is read from stored state, without making the answer:
 * it must stay while nothing the answer is made of changes (then a revalidation is answered
 * NOT_MODIFIED), and move with every change that could alter the answer.
 */
describe("list revisions", () => {
  let w: SecretsWorld & { rootKey: string };
  const input = (extra: Record<string, unknown> = {}) => ({ ...at(w), includeImports: true, expandSecretReferences: true, ...extra });

  /** The revision a list would be sent under, and whether a caller holding `held` was told it still holds. */
  async function revalidate(held?: string, actor: Actor = w.admin, sr: Strongroom = w.sr, extra: Record<string, unknown> = {}) {
    const revalidation: Revalidation = { holds: (revision) => revision === held };
    const result = await sr.call(operations.secrets.list, actor, input(extra), revalidation);
    return { revision: revalidation.revision!, notModified: result === NOT_MODIFIED };
  }
  const revision = async (actor: Actor = w.admin, extra: Record<string, unknown> = {}) => (await revalidate(undefined, actor, w.sr, extra)).revision;

  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "other" });
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name: "shared" });
    await w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "1" });
  });

  it("stays while nothing changes, and a caller holding it is answered NOT_MODIFIED", async () => {
    const first = await revalidate();
    expect(first.notModified).toBe(false);
    await w.sr.secrets.list(w.admin, input());
    await w.sr.secrets.get(w.admin, { ...at(w), secretName: "A" });
    const again = await revalidate(first.revision);
    expect(again).toEqual({ revision: first.revision, notModified: true });
    // The revision the answer is sent under is the one a revalidation compares with.
    expect((await revalidate("stale")).notModified).toBe(false);
  });

  it("moves with every kind of change that can alter the answer", async () => {
    const tag = await w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "pci", name: "pci" });
    const changes: [string, () => Promise<unknown>][] = [
      ["secret created", () => w.sr.secrets.create(w.admin, { ...at(w), secretName: "B", secretValue: "2" })],
      ["secret updated", () => w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "3" })],
      ["secret tagged", () => w.sr.secrets.update(w.admin, { ...at(w), secretName: "A", tagIds: [tag.workspaceTag.id] } as never)],
      ["tag created", () => w.sr.tags.create(w.admin, { projectId: w.projectId, slug: "public", name: "public" })],
      ["tag deleted", () => w.sr.tags.delete(w.admin, { projectId: w.projectId, tagId: tag.workspaceTag.id })],
      ["personal override", () => w.sr.secrets.create(w.admin, { ...at(w), secretName: "A", secretValue: "mine", type: "personal" })],
      ["folder created", () => w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "dev", name: "more" })],
      ["import created", () => w.sr.secretImports.create(w.admin, { projectId: w.projectId, environment: "dev", path: "/", import: { environment: "prod", path: "/shared" } })],
      ["imported folder's secret", () => w.sr.secrets.create(w.admin, { ...at(w, "prod", "/shared"), secretName: "IMPORTED", secretValue: "x" })],
      ["referenced secret elsewhere", () => w.sr.secrets.create(w.admin, { ...at(w, "staging"), secretName: "REF", secretValue: "y" })],
      ["imported environment renamed", async () => {
        const prod = await w.storage.tables.environments.findOne({ projectId: w.projectId, slug: "prod" });
        await w.sr.environments.update(w.admin, { projectId: w.projectId, id: prod!.id, slug: "production" } as never);
      }],
      ["secret deleted", () => w.sr.secrets.delete(w.admin, { ...at(w), secretName: "B" })],
      ["batch written", () => w.sr.secrets.updateMany(w.admin, { ...at(w), secrets: [{ secretKey: "A", secretValue: "4" }] } as never)],
    ];
    const seen = new Set([await revision()]);
    for (const [what, change] of changes) {
      await change();
      const now = await revision();
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
    }
  });

  it("moves when the caller's permissions change, and differs between callers and between flags", async () => {
    const reader = await w.role("reader", [{ subject: "secrets", action: ["describeSecret", "readValue"] }]);
    const user = await w.userWith([reader]);
    const before = await revision(user);
    expect(before).not.toBe(await revision());
    expect(await revision(user, { viewSecretValue: false })).not.toBe(before);
    const role = await w.storage.tables.projectRoles.findOne({ projectId: w.projectId, slug: "reader" });
    await w.sr.customRoles.update(w.admin, { projectId: w.projectId, roleId: role!.id, permissions: [{ subject: "secrets", action: ["describeSecret"] }] } as never);
    expect(await revision(user)).not.toBe(before);
  });

  it("refuses as the answer would, before comparing", async () => {
    const outsider = await w.userWith([await w.role("tags-only", [{ subject: "tags", action: ["read"] }])]);
    const everything: Revalidation = { holds: () => true };
    await expect(w.sr.call(operations.secrets.list, outsider, input(), everything)).rejects.toMatchObject({ code: "PermissionDenied" });
    await expect(w.sr.call(operations.secrets.list, w.admin, input({ secretPath: "/missing" }), everything)).rejects.toMatchObject({ code: "NotFound" });
  });

  it("moves at once for a write made by another instance on the same database", async () => {
    const other = await createStrongroom({ storage: w.storage, rootKey: w.rootKey, audit: false });
    try {
      const held = await revalidate();
      expect((await revalidate(held.revision, w.admin, other)).notModified).toBe(true);
      await other.secrets.update(w.admin, { ...at(w), secretName: "A", secretValue: "elsewhere" });
      expect((await revalidate(held.revision)).notModified).toBe(false);
    } finally {
      await other.scheduler.stop();
    }
  });
});
