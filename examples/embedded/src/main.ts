/**
 * Strongroom embedded in a TypeScript program: SQLite storage, no HTTP server.
 * Run with `npm start -w @strongroom/example-embedded`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey } from "@strongroom/core";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "strongroom-embedded-"));
const strongroom = await createStrongroom({
  storage: await createSqliteStorage({ filename: join(dataDir, "strongroom.db") }),
  // Keep this key safe: it wraps every data key. Losing it loses the data.
  rootKey: process.env.STRONGROOM_ROOT_KEY ?? generateRootKey(),
});

try {
  // The first call on a new instance: a user, an organization and an admin machine identity.
  const setup = await strongroom.admin.bootstrap(
    { type: "anonymous" },
    { email: "owner@example.com", password: "a long password", organization: "Example Co" },
  );
  const admin = await strongroom.authenticate(setup.identity.credentials.token);

  const { project } = await strongroom.projects.create(admin, { projectName: "Payments", slug: "payments" });
  console.log(`project ${project.slug} with environments ${project.environments.map((e) => e.slug).join(", ")}`);

  // A machine identity for a deploy pipeline, logged in with universal auth.
  const { identity } = await strongroom.identities.create(admin, { name: "deployer", organizationId: setup.organization.id });
  const { identityUniversalAuth } = await strongroom.identities.attachUniversalAuth(admin, { identityId: identity.id });
  const { clientSecret } = await strongroom.identities.createClientSecret(admin, { identityId: identity.id });
  await strongroom.memberships.addIdentity(admin, { projectId: project.id, identityId: identity.id, role: "viewer" });
  const login = await strongroom.auth.universalAuthLogin({ type: "anonymous" }, { clientId: identityUniversalAuth.clientId, clientSecret });
  const deployer = await strongroom.authenticate(login.accessToken);

  const { roles } = await strongroom.roles.list(deployer, { projectId: project.id });
  console.log(`deployer sees roles: ${roles.map((r) => r.slug).join(", ")}`);
} finally {
  await strongroom.close();
}
