import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestWorld, type TestWorld } from "@strongroom/core/testing";
import type { Actor } from "../../src/index.js";

const rootCa = { name: "root", type: "root" as const, commonName: "Acme Root", keyAlgorithm: "EC_prime256v1" as const, ttlDays: 365 };

let w: TestWorld;
beforeEach(async () => {
  w = await createTestWorld({ projectType: "cert-manager" });
});
afterEach(() => w.close());

describe("certificate manager access", () => {
  it("keeps CA private keys sealed at rest and out of every answer", async () => {
    const { ca } = await w.sr.certificateAuthorities.create(w.admin, { projectId: w.projectId, ...rootCa });
    expect(Object.keys(ca)).not.toContain("privateKey");
    const row = await w.sr.context.storage.tables.certificateAuthorities.get(ca.id);
    expect(row!.sealedPrivateKey).not.toMatch(/BEGIN|PRIVATE/);
    // The seal is bound to its CA: moved onto another CA's row it no longer opens.
    const { ca: other } = await w.sr.certificateAuthorities.create(w.admin, { projectId: w.projectId, ...rootCa, name: "other" });
    await w.sr.context.storage.tables.certificateAuthorities.update({ id: other.id }, { sealedPrivateKey: row!.sealedPrivateKey });
    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: w.projectId,
      slug: "moved",
      issuerType: "ca",
      caId: other.id,
      defaults: { ttlDays: 1, commonName: "x.test" },
    });
    await expect(w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id })).rejects.toThrow();
  });

  it("answers 400 outside cert-manager projects", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Secrets" });
    await expect(w.sr.certificateAuthorities.create(w.admin, { projectId: project.id, ...rootCa })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(w.sr.installations.list(w.admin, { projectId: project.id })).rejects.toMatchObject({ code: "BadRequest" });
  });

  it("requires each subject's permission: members have none, viewers read only", async () => {
    const { ca } = await w.sr.certificateAuthorities.create(w.admin, { projectId: w.projectId, ...rootCa });
    const member = await w.userWith(["member"]);
    const viewer = await w.userWith(["viewer"]);
    const calls: [string, (actor: Actor) => Promise<unknown>][] = [
      ["certificate-authorities", (a) => w.sr.certificateAuthorities.list(a, { projectId: w.projectId })],
      ["certificate-profiles", (a) => w.sr.certificateProfiles.list(a, { projectId: w.projectId })],
      ["certificates", (a) => w.sr.certificates.list(a, { projectId: w.projectId })],
      ["pki-discovery", (a) => w.sr.discovery.list(a, { projectId: w.projectId })],
      ["pki-installations", (a) => w.sr.installations.list(a, { projectId: w.projectId })],
      ["pki-alerts", (a) => w.sr.alerts.list(a, { projectId: w.projectId })],
    ];
    for (const [subject, call] of calls) {
      await expect(call(member), subject).rejects.toMatchObject({ code: "PermissionDenied", message: `You are not allowed to read on ${subject}` });
      await expect(call(viewer), subject).resolves.toBeDefined();
    }
    await expect(w.sr.certificateAuthorities.get(viewer, { caId: ca.id })).resolves.toBeDefined();
    await expect(w.sr.certificateAuthorities.create(viewer, { projectId: w.projectId, ...rootCa, name: "viewer-made" })).rejects.toMatchObject({ code: "PermissionDenied" });
    await expect(
      w.sr.alerts.create(viewer, {
        projectId: w.projectId,
        name: "a",
        eventType: "expiration",
        alertBefore: "30d",
        channels: [{ channelType: "email", config: { recipients: ["ops@acme.test"] } }],
      }),
    ).rejects.toMatchObject({ code: "PermissionDenied" });
  });

  it("answers 404 for records of another organization, exactly as for unknown ids", async () => {
    const { ca } = await w.sr.certificateAuthorities.create(w.admin, { projectId: w.projectId, ...rootCa });
    const outsider = await otherOrganizationAdmin(w);
    await expect(w.sr.certificateAuthorities.get(outsider, { caId: ca.id })).rejects.toMatchObject({ code: "NotFound", message: "Certificate authority not found" });
    await expect(w.sr.certificateAuthorities.get(outsider, { caId: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({
      code: "NotFound",
      message: "Certificate authority not found",
    });
    await expect(w.sr.certificateAuthorities.list(outsider, { projectId: w.projectId })).rejects.toMatchObject({ code: "NotFound" });
  });
});

/** The admin identity of a second organization, created by a user who signs up for it. */
async function otherOrganizationAdmin(world: TestWorld): Promise<Actor> {
  const user = await world.userWith(["no-access"]);
  const { organization } = await world.sr.organizations.create(user, { name: "Rival" });
  const { identity } = await world.sr.identities.create(user, { name: "rival-admin", organizationId: organization.id, role: "admin" });
  return { type: "identity", identityId: identity.id, orgId: organization.id, tokenId: "test" };
}
