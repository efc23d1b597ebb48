import { expect, it } from "vitest";
import { anonymous, createMemoryStorage, createStrongroom, generateRootKey } from "@strongroom/core";

/**
 * How an application unit-tests its use of Strongroom: the same instance over in-memory storage
 * (no file, no server, nothing to clean up), with a fresh root key per test.
 */
it("stores and reads a secret on an in-memory instance", async () => {
  const strongroom = await createStrongroom({ storage: createMemoryStorage(), rootKey: generateRootKey() });
  try {
    const setup = await strongroom.admin.bootstrap(anonymous, { email: "test@example.com", password: "a long password", organization: "Test" });
    const admin = await strongroom.authenticate(setup.identity.credentials.token);
    const { project } = await strongroom.projects.create(admin, { projectName: "App" });
    await strongroom.secrets.create(admin, { projectId: project.id, environment: "dev", secretPath: "/", secretName: "API_URL", secretValue: "http://localhost:3000" });
    const { secret } = await strongroom.secrets.get(admin, { projectId: project.id, environment: "dev", secretPath: "/", secretName: "API_URL" });
    expect(secret.secretValue).toBe("http://localhost:3000");
  } finally {
    await strongroom.close();
  }
});
