import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestWorld, forEachStore, type TestWorld } from "@strongroom/core/testing";
import type { Actor, KmsKey } from "@strongroom/core";
import { builtInProjectRoles, can, compileRules, missingPermissions } from "../../src/permissions/index.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const allows = (slug: keyof typeof builtInProjectRoles, action: string) => can(compileRules(builtInProjectRoles[slug].permissions), action, "kms");

describe("KMS permissions in the built-in roles and role definitions", () => {
  it.each([
    ["admin", ["read", "create", "edit", "delete", "encrypt", "decrypt", "sign", "verify"], []],
    ["member", ["read", "encrypt", "decrypt", "sign", "verify"], ["create", "edit", "delete"]],
    ["viewer", ["read"], ["create", "edit", "delete", "encrypt", "decrypt", "sign", "verify"]],
    ["no-access", [], ["read", "encrypt"]],
  ] as const)("%s may %j on kms and not %j", (slug, granted, denied) => {
    for (const action of granted) expect(allows(slug, action), action).toBe(true);
    for (const action of denied) expect(allows(slug, action), action).toBe(false);
  });

  it("reads Infisical's subject name cmek as kms, in rules and in the granting boundary", () => {
    const operator = compileRules([{ subject: "cmek", action: ["read", "encrypt", "decrypt"] }]);
    expect(can(operator, "encrypt", "kms")).toBe(true);
    expect(can(operator, "create", "kms")).toBe(false);
    expect(can(compileRules([{ subject: "kms", action: "encrypt" }, { subject: "cmek", action: "encrypt", inverted: true }]), "encrypt", "kms")).toBe(false);
    const member = builtInProjectRoles.member.permissions;
    expect(missingPermissions(member, [{ subject: "cmek", action: ["encrypt", "sign"] }])).toEqual([]);
    expect(missingPermissions(member, [{ subject: "cmek", action: ["encrypt", "delete"] }])).toEqual([{ subject: "cmek", action: "delete" }]);
  });
});

forEachStore("KMS access", (store) => {
  let w: TestWorld;
  let key: KmsKey;
  let ciphertext: string;
  beforeAll(async () => {
    w = await createTestWorld({ storage: await store.open(), projectType: "kms" });
    ({ key } = await w.sr.kms.createKey(w.admin, { projectId: w.projectId, name: "shared" }));
    ({ ciphertext } = await w.sr.kms.encrypt(w.admin, { keyId: key.id, plaintext: b64("hello") }));
  });
  afterAll(() => w?.close());

  const code = (promise: Promise<unknown>) => promise.then(() => "allowed", (error: { code: string }) => error.code);
  const attempts = (actor: Actor) => ({
    read: code(w.sr.kms.getKey(actor, { keyId: key.id })),
    encrypt: code(w.sr.kms.encrypt(actor, { keyId: key.id, plaintext: b64("x") })),
    decrypt: code(w.sr.kms.decrypt(actor, { keyId: key.id, ciphertext })),
    create: code(w.sr.kms.createKey(actor, { projectId: w.projectId, name: `by-${Math.random().toString(36).slice(2, 8)}` })),
    edit: code(w.sr.kms.updateKey(actor, { keyId: key.id, description: "changed" })),
  });
  const settle = async (pending: Record<string, Promise<string>>) => Object.fromEntries(await Promise.all(Object.entries(pending).map(async ([k, v]) => [k, await v])));

  it("lets a member use keys but not change them, and a viewer only look", async () => {
    expect(await settle(attempts(await w.userWith(["member"])))).toEqual({ read: "allowed", encrypt: "allowed", decrypt: "allowed", create: "PermissionDenied", edit: "PermissionDenied" });
    expect(await settle(attempts(await w.userWith(["viewer"])))).toEqual({ read: "allowed", encrypt: "PermissionDenied", decrypt: "PermissionDenied", create: "PermissionDenied", edit: "PermissionDenied" });
  });

  it("makes a cryptographic operator a custom role away, written with Infisical's subject name", async () => {
    const operator = await w.role("crypto-operator", [{ subject: "cmek", action: ["read", "encrypt", "decrypt"] }]);
    const bot = await w.identityWith([operator]);
    expect(await settle(attempts(bot.actor))).toEqual({ read: "allowed", encrypt: "allowed", decrypt: "allowed", create: "PermissionDenied", edit: "PermissionDenied" });
  });

  it("shows a machine identity of another organization nothing: the key answers 404 as if it did not exist", async () => {
    const { anonymous } = await import("@strongroom/core");
    const email = "founder@rival.test";
    const password = "a long enough password";
    await w.sr.organizations.createUser(w.admin, { orgId: w.orgId, email, password });
    const founder = await w.sr.authenticate((await w.sr.auth.login(anonymous, { email, password })).accessToken);
    const { organization } = await w.sr.organizations.create(founder, { name: "Rival" });
    const { identity } = await w.sr.identities.create(founder, { name: "rival-admin", organizationId: organization.id, role: "admin" });
    const { identityUniversalAuth } = await w.sr.identities.attachUniversalAuth(founder, { identityId: identity.id } as never);
    const { clientSecret } = await w.sr.identities.createClientSecret(founder, { identityId: identity.id } as never);
    const login = await w.sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
    const outsider = await w.sr.authenticate(login.accessToken);
    expect(await code(w.sr.kms.getKey(outsider, { keyId: key.id }))).toBe("NotFound");
    expect(await code(w.sr.kms.decrypt(outsider, { keyId: key.id, ciphertext }))).toBe("NotFound");
    expect(await code(w.sr.kms.listKeys(outsider, { projectId: w.projectId } as never))).toBe("NotFound");
  });
});
