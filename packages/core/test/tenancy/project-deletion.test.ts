import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import { failingStorage } from "../secrets/failing-storage.js";

/**
 * Deleting a project removes everything in it, from every area, in one transaction: afterwards
 * no row anywhere names the project, the organization's other projects are untouched, and a
 * deletion that fails half-way leaves every row where it was.
 */
forEachStore("deleting a project", (store) => {
  let w: TestWorld;
  let storage: ReturnType<typeof failingStorage>;
  beforeAll(async () => {
    storage = failingStorage(await store.open());
    w = await createTestWorld({ storage });
  });
  afterAll(() => w?.close());

  /** Every row of every table, as text, by table; but the audit log's, which keeps a deleted project's entries (DESIGN.md §11). */
  async function snapshot(): Promise<Map<string, string[]>> {
    const tables = w.storage.tables as unknown as Record<string, { find(): Promise<{ id: string }[]> }>;
    const out = new Map<string, string[]>();
    for (const name of Object.keys(tables).sort()) {
      if (name.startsWith("audit")) continue;
      out.set(name, (await tables[name].find()).map((row) => JSON.stringify(row)).sort());
    }
    return out;
  }

  /** Rows that mention any of these ids, by table. */
  async function rowsNaming(ids: readonly string[]): Promise<Record<string, number>> {
    const found: Record<string, number> = {};
    for (const [name, rows] of await snapshot()) {
      const n = rows.filter((row) => ids.some((id) => row.includes(id))).length;
      if (n) found[name] = n;
    }
    return found;
  }

  /** A secret-manager project holding something of every kind the secret manager and the agent vault keep. */
  async function filledSecretProject(name: string) {
    const { project } = await w.sr.projects.create(w.admin, { projectName: name });
    const at = { projectId: project.id, environment: "dev", secretPath: "/" };
    await w.sr.secrets.create(w.admin, { ...at, secretName: "TOKEN", secretValue: "v1" } as never);
    await w.sr.secrets.update(w.admin, { ...at, secretName: "TOKEN", secretValue: "v2" } as never);
    await w.sr.folders.create(w.admin, { projectId: project.id, environment: "dev", path: "/", name: "app" } as never);
    await w.sr.secretImports.create(w.admin, { projectId: project.id, environment: "staging", path: "/", import: { environment: "dev", path: "/" } } as never);
    await w.sr.tags.create(w.admin, { projectId: project.id, slug: "pci", name: "PCI", color: "#000000" } as never);
    await w.sr.customRoles.create(w.admin, { projectId: project.id, slug: "auditor", name: "Auditor", permissions: [{ subject: "secrets", action: "read" }] } as never);
    const { identity } = await w.sr.identities.create(w.admin, { name: `${name}-bot`, organizationId: w.orgId });
    await w.sr.memberships.addIdentity(w.admin, { projectId: project.id, identityId: identity.id, role: "viewer" });
    await w.sr.privilegesV2.create(w.admin, { identityId: identity.id, projectId: project.id, slug: "extra", permissions: [{ subject: "tags", action: "read" }] } as never);
    const { service } = await w.sr.proxiedServices.create(w.admin, {
      ...at,
      name: "github",
      hostPattern: `${name.toLowerCase()}.example.com`,
      credentials: [{ headerName: "Authorization", headerPrefix: "Bearer", secretKey: "TOKEN" }],
    } as never);
    await w.sr.accessBundles.create(w.admin, { projectId: project.id, name: "agents", serviceIds: [service.id], grants: [{ type: "identity", id: identity.id }] } as never);
    const envIds = project.environments.map((e) => e.id);
    return { project, identityId: identity.id, ids: [project.id, ...envIds] };
  }

  it("removes a secret-manager project with everything in it and leaves the other projects alone", async () => {
    const kept = await filledSecretProject("Kept");
    const before = await rowsNaming(kept.ids);
    const doomed = await filledSecretProject("Doomed");
    expect(Object.keys(await rowsNaming(doomed.ids)).length).toBeGreaterThan(8);
    const { project } = await w.sr.projects.delete(w.admin, { projectId: doomed.project.id });
    expect(project).toMatchObject({ id: doomed.project.id, name: "Doomed" });
    expect(await rowsNaming(doomed.ids)).toEqual({});
    // Its audit log stays, and still verifies.
    await w.sr.audit.flush();
    expect(await w.storage.tables.auditEntries.count({ projectId: doomed.project.id })).toBeGreaterThan(0);
    expect(await w.sr.audit.verify({ chain: `project:${doomed.project.id}` })).toMatchObject({ ok: true });
    expect(await rowsNaming(kept.ids)).toEqual(before);
    // The identity stays, a member of nothing; the project is gone for everyone.
    expect(await w.storage.tables.identities.get(doomed.identityId)).toBeDefined();
    await expect(w.sr.projects.get(w.admin, { projectId: doomed.project.id })).rejects.toMatchObject({ code: "NotFound" });
  });

  it("removes certificate-manager and KMS projects whole", async () => {
    const { project: pki } = await w.sr.projects.create(w.admin, { projectName: "PKI", type: "cert-manager" });
    const { ca } = await w.sr.certificateAuthorities.create(w.admin, {
      projectId: pki.id,
      name: "root",
      type: "root",
      commonName: "Acme Root",
      keyAlgorithm: "EC_prime256v1",
      ttlDays: 365,
    } as never);
    const { certificateProfile } = await w.sr.certificateProfiles.create(w.admin, {
      projectId: pki.id,
      slug: "web",
      issuerType: "ca",
      caId: ca.id,
      defaults: { ttlDays: 30, commonName: "web.acme.test" },
    } as never);
    await w.sr.certificates.issue(w.admin, { profileId: certificateProfile.id } as never);
    await w.sr.alerts.create(w.admin, {
      projectId: pki.id,
      name: "expiring",
      eventType: "expiration",
      alertBefore: "30d",
      channels: [{ channelType: "email", config: { recipients: ["ops@acme.test"] } }],
    } as never);
    const { project: keys } = await w.sr.projects.create(w.admin, { projectName: "Keys", type: "kms" });
    await w.sr.kms.createKey(w.admin, { projectId: keys.id, name: "payments" } as never);
    expect(Object.keys(await rowsNaming([pki.id]))).toEqual(expect.arrayContaining(["certificateAuthorities", "certificates", "certificateAlerts"]));
    await w.sr.projects.delete(w.admin, { projectId: pki.id });
    await w.sr.projects.delete(w.admin, { projectId: keys.id });
    expect(await rowsNaming([pki.id, keys.id])).toEqual({});
  });

  it("refuses while delete protection is on, and removes nothing", async () => {
    const { project } = await w.sr.projects.create(w.admin, { projectName: "Guarded", hasDeleteProtection: true });
    const before = await snapshot();
    await expect(w.sr.projects.delete(w.admin, { projectId: project.id })).rejects.toMatchObject({ code: "BadRequest" });
    expect(await snapshot()).toEqual(before);
    await w.sr.projects.update(w.admin, { projectId: project.id, hasDeleteProtection: false });
    await w.sr.projects.delete(w.admin, { projectId: project.id });
    expect(await rowsNaming([project.id])).toEqual({});
  });

  it("leaves every row in place when a write fails half-way through the deletion", async () => {
    const victim = await filledSecretProject("Halfway");
    // The audit log's timed flush writes through the same storage: drained first, it cannot take
    // the injected failure meant for the deletion.
    await w.sr.audit.flush();
    const before = await snapshot();
    storage.failOnWrite(6);
    await expect(w.sr.projects.delete(w.admin, { projectId: victim.project.id })).rejects.toThrow();
    expect(await snapshot()).toEqual(before);
    expect((await w.sr.projects.get(w.admin, { projectId: victim.project.id })).project.name).toBe("Halfway");
  });
});
