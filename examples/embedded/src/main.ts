/**
 * Strongroom embedded in a TypeScript program: SQLite storage, no HTTP server.
 * Run with `npm start -w @strongroom/example-embedded`; run it again and it reads back what the
 * first run stored. Its data lives in DATA_DIR (default ./data), its root key beside it.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, StrongroomError } from "@strongroom/core";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

const OWNER = { email: "owner@example.com", password: "a long password" };

/**
 * The root key wraps every data key: the same key must open the database on every start, so it
 * is made once and kept (owner-only file), unless STRONGROOM_ROOT_KEY provides it. Lose it and
 * the data cannot be read again; keep it out of backups of the database.
 */
function rootKeyIn(dataDir: string): string {
  if (process.env.STRONGROOM_ROOT_KEY) return process.env.STRONGROOM_ROOT_KEY;
  const file = join(dataDir, "root.key");
  try {
    return readFileSync(file, "utf8").trim();
  } catch (thrown) {
    if ((thrown as NodeJS.ErrnoException).code !== "ENOENT") throw thrown;
  }
  const key = generateRootKey();
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  return key;
}

const dataDir = process.env.DATA_DIR ?? "./data";
mkdirSync(dataDir, { recursive: true, mode: 0o700 });
const strongroom = await createStrongroom({
  storage: await createSqliteStorage({ filename: join(dataDir, "strongroom.db") }),
  rootKey: rootKeyIn(dataDir),
});

try {
  // The first run sets the instance up: a user, an organization and an admin machine identity,
  // then a project and a secret. Later runs find it set up and log in as the owner.
  let firstRun = true;
  try {
    await strongroom.admin.bootstrap(anonymous, { ...OWNER, organization: "Example Co" });
  } catch (thrown) {
    if (!(thrown instanceof StrongroomError && thrown.code === "BadRequest")) throw thrown;
    firstRun = false;
  }
  const { accessToken } = await strongroom.auth.login(anonymous, OWNER);
  const owner = await strongroom.authenticate(accessToken);

  if (firstRun) {
    const { project } = await strongroom.projects.create(owner, { projectName: "Payments", slug: "payments" });
    console.log(`project ${project.slug} with environments ${project.environments.map((e) => e.slug).join(", ")}`);
    await strongroom.secrets.create(owner, { projectId: project.id, environment: "prod", secretPath: "/", secretName: "STRIPE_KEY", secretValue: "sk_live_example" });

    // A machine identity for a deploy pipeline, logged in with universal auth.
    const { identity } = await strongroom.identities.create(owner, { name: "deployer", organizationId: project.orgId });
    const { identityUniversalAuth } = await strongroom.identities.attachUniversalAuth(owner, { identityId: identity.id });
    const { clientSecret } = await strongroom.identities.createClientSecret(owner, { identityId: identity.id });
    await strongroom.memberships.addIdentity(owner, { projectId: project.id, identityId: identity.id, role: "viewer" });
    const login = await strongroom.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
    const deployer = await strongroom.authenticate(login.accessToken);
    const { roles } = await strongroom.roles.list(deployer, { projectId: project.id });
    console.log(`deployer sees roles: ${roles.map((r) => r.slug).join(", ")}`);
  }

  const { projects } = await strongroom.projects.list(owner, {});
  const payments = projects.find((p) => p.slug === "payments")!;
  const { secret } = await strongroom.secrets.get(owner, { projectId: payments.id, environment: "prod", secretPath: "/", secretName: "STRIPE_KEY" });
  console.log(`${firstRun ? "stored" : "read back"} STRIPE_KEY=${secret.secretValue}`);
} finally {
  await strongroom.close();
}
