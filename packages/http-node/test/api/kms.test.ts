import { createHash, createPublicKey, verify } from "node:crypto";
import { EncryptionAlgorithm, InfisicalSDK, KeyUsage, SigningAlgorithm } from "@infisical/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendAvailable, backends, bootstrap, createIdentity, createProject, createUser, expectError, startApi, type TestApi, type World } from "../../src/testing/harness.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A kms project over real HTTP, driven by the unmodified official SDK and by plain requests. */
describe.each(backends)("KMS over HTTP on %s", (backend) => {
  let api: TestApi;
  let world: World;
  let projectId: string;
  let bot: Awaited<ReturnType<typeof createIdentity>>;
  let available = true;

  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    api = await startApi(backend);
    world = await bootstrap(api);
    projectId = (await createProject(api, world.admin.token, { projectName: "Keys", type: "kms" })).id;
    bot = await createIdentity(api, world.admin.token, world.admin.orgId, "kms-bot", "member");
    const joined = await api.request("POST", `/api/v2/workspace/${projectId}/identity-memberships/${bot.identityId}`, { token: world.admin.token, body: { role: "admin" } });
    expect(joined.status).toBe(200);
  });
  afterAll(async () => {
    if (available) await api.close();
  });

  it("serves the official SDK's kms() client unmodified: keys, encryption, signing, public key", async (ctx) => {
    if (!available) return ctx.skip();
    const client = new InfisicalSDK({ siteUrl: api.url });
    await client.auth().universalAuth.login({ clientId: bot.clientId, clientSecret: bot.clientSecret });
    const kms = client.kms();

    const key = await kms.keys().create({ projectId, name: "sdk-aes", description: "from the SDK", keyUsage: KeyUsage.ENCRYPTION, encryptionAlgorithm: EncryptionAlgorithm.AES_256_GCM });
    expect(key).toMatchObject({ name: "sdk-aes", projectId, keyUsage: "encrypt-decrypt", encryptionAlgorithm: "aes-256-gcm", version: 1, isDisabled: false, description: "from the SDK" });
    expect(await kms.keys().getByName({ projectId, name: "sdk-aes" })).toEqual(key);

    const ciphertext = await kms.encryption().encrypt({ keyId: key.id, plaintext: b64("hello from the SDK") });
    expect(Buffer.from(await kms.encryption().decrypt({ keyId: key.id, ciphertext }), "base64").toString()).toBe("hello from the SDK");

    const signer = await kms.keys().create({ projectId, name: "sdk-signer", keyUsage: KeyUsage.SIGNING, encryptionAlgorithm: EncryptionAlgorithm.ECC_NIST_P256 });
    expect(await kms.signing().listSigningAlgorithms({ keyId: signer.id })).toEqual(["ECDSA_SHA_512", "ECDSA_SHA_384", "ECDSA_SHA_256"]);
    const data = b64("release notes v2");
    const signed = await kms.signing().sign({ keyId: signer.id, data, signingAlgorithm: SigningAlgorithm.ECDSA_SHA_256 });
    expect(signed).toMatchObject({ keyId: signer.id, signingAlgorithm: "ECDSA_SHA_256" });
    expect(await kms.signing().verify({ keyId: signer.id, data, signature: signed.signature, signingAlgorithm: SigningAlgorithm.ECDSA_SHA_256 })).toEqual({
      signatureValid: true,
      keyId: signer.id,
      signingAlgorithm: "ECDSA_SHA_256",
    });
    const digest = createHash("sha256").update("release notes v2").digest("base64");
    const overDigest = await kms.signing().sign({ keyId: signer.id, data: digest, signingAlgorithm: SigningAlgorithm.ECDSA_SHA_256, isDigest: true });
    const publicKey = await kms.signing().getPublicKey({ keyId: signer.id });
    for (const signature of [signed.signature, overDigest.signature]) {
      expect(verify("sha256", Buffer.from("release notes v2"), { key: createPublicKey(publicKey), dsaEncoding: "der" }, Buffer.from(signature, "base64"))).toBe(true);
    }

    expect((await kms.keys().delete({ keyId: key.id })).id).toBe(key.id);
    await expect(kms.keys().getByName({ projectId, name: "sdk-aes" })).rejects.toThrow(/404/);
  });

  it("answers Infisical's shapes for list, get, update, rotate and MACs, and clear errors for bad requests", async (ctx) => {
    if (!available) return ctx.skip();
    const token = world.admin.token;
    const created = await api.request("POST", "/api/v1/kms/keys", { token, body: { projectId, name: "http-mac", keyUsage: "generate-verify-mac", algorithm: "HMAC_SHA_256", rotationIntervalDays: 90 } });
    expect(created.status).toBe(200);
    const key = created.body.key;
    expect(key).toMatchObject({ algorithm: "HMAC_SHA_256", rotationIntervalDays: 90 });

    const listed = await api.request("GET", `/api/v1/kms/keys?projectId=${projectId}&search=http&limit=10`, { token });
    expect(listed.body).toEqual({ keys: [key], totalCount: 1 });
    expect((await api.request("GET", `/api/v1/kms/keys/${key.id}`, { token })).body).toEqual({ key });

    const mac = await api.request("POST", `/api/v1/kms/keys/${key.id}/generate-mac`, { token, body: { data: b64("m") } });
    expect(mac.body).toEqual({ mac: expect.any(String), keyId: key.id, macAlgorithm: "HMAC_SHA_256" });
    const rotated = await api.request("POST", `/api/v1/kms/keys/${key.id}/rotate`, { token });
    expect(rotated.body.key.version).toBe(2);
    const checked = await api.request("POST", `/api/v1/kms/keys/${key.id}/verify-mac`, { token, body: { data: b64("m"), mac: mac.body.mac } });
    expect(checked.body).toEqual({ macValid: true, keyId: key.id, macAlgorithm: "HMAC_SHA_256" });

    expectError(await api.request("POST", `/api/v1/kms/keys/${key.id}/encrypt`, { token, body: { plaintext: b64("x") } }), 400, "BadRequest");
    expectError(await api.request("POST", `/api/v1/kms/keys/${key.id}/verify-mac`, { token, body: { data: "%%%", mac: mac.body.mac } }), 422, "ValidationFailure");
    expectError(await api.request("GET", "/api/v1/kms/keys/00000000-0000-4000-8000-000000000000", { token }), 404, "NotFound");

    const disabled = await api.request("PATCH", `/api/v1/kms/keys/${key.id}`, { token, body: { isDisabled: true, description: "paused" } });
    expect(disabled.body.key).toMatchObject({ isDisabled: true, description: "paused" });
    const refused = expectError(await api.request("POST", `/api/v1/kms/keys/${key.id}/generate-mac`, { token, body: { data: b64("m") } }), 400, "BadRequest");
    expect(refused.message).toBe("The KMS key 'http-mac' is disabled");

    const viewer = await createUser(api, token, world.admin.orgId, "viewer@acme.test");
    await api.request("POST", `/api/v2/workspace/${projectId}/memberships`, { token, body: { usernames: [viewer.email], roleSlugs: ["viewer"] } });
    await api.request("PATCH", `/api/v1/kms/keys/${key.id}`, { token, body: { isDisabled: false } });
    expect((await api.request("GET", `/api/v1/kms/keys/${key.id}`, { token: viewer.token })).status).toBe(200);
    expectError(await api.request("POST", `/api/v1/kms/keys/${key.id}/generate-mac`, { token: viewer.token, body: { data: b64("m") } }), 403, "PermissionDenied");

    const gone = await api.request("DELETE", `/api/v1/kms/keys/${key.id}`, { token });
    expect(gone.body.key.id).toBe(key.id);
    for (const line of api.logs) expect(line).not.toContain(mac.body.mac);
  });
});
