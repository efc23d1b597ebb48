/**
 * Live secret events with Strongroom embedded: the same subscription the HTTP server offers as
 * Server-Sent Events (`POST /api/v1/events/subscribe/project-events`), as an async iterable.
 * Run with `npm start -w @strongroom/example-events-subscriber`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anonymous, createStrongroom, generateRootKey, type Actor, type Strongroom } from "@strongroom/core";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "strongroom-events-"));
const strongroom = await createStrongroom({
  storage: await createSqliteStorage({ filename: join(dataDir, "strongroom.db") }),
  rootKey: process.env.STRONGROOM_ROOT_KEY ?? generateRootKey(),
});

/** A machine identity that may watch the project (the built-in viewer role may subscribe to events). */
async function watcherOf(sr: Strongroom, admin: Actor, organizationId: string, projectId: string): Promise<Actor> {
  const { identity } = await sr.identities.create(admin, { name: "watcher", organizationId });
  const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id });
  const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id });
  await sr.memberships.addIdentity(admin, { projectId, identityId: identity.id, role: "viewer" });
  const login = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
  return sr.authenticate(login.accessToken);
}

try {
  const setup = await strongroom.admin.bootstrap(anonymous, { email: "owner@example.com", password: "a long password", organization: "Example Co" });
  const admin = await strongroom.authenticate(setup.identity.credentials.token);
  const { project } = await strongroom.projects.create(admin, { projectName: "Payments", slug: "payments" });
  const watcher = await watcherOf(strongroom, admin, setup.organization.id, project.id);

  // Events are live only: subscribe before the changes you want to see.
  const subscription = await strongroom.events.subscribe(watcher, {
    projectId: project.id,
    register: [
      { event: "secret:create", conditions: { secretPath: "/**" } },
      { event: "secret:update", conditions: { secretPath: "/**" } },
      // Deletions only from production.
      { event: "secret:delete", conditions: { environmentSlug: "prod", secretPath: "/**" } },
    ],
  });
  const expected = 4;
  const printed = (async () => {
    let seen = 0;
    for await (const event of subscription.events) {
      console.log(`#${event.id} ${event.eventType} ${JSON.stringify(event.payload)}`);
      // Leaving the loop ends the subscription and releases it.
      if (++seen === expected) break;
    }
  })();

  const at = (environment: string) => ({ projectId: project.id, environment, secretPath: "/" });
  await strongroom.secrets.create(admin, { ...at("dev"), secretName: "DATABASE_URL", secretValue: "postgres://dev" });
  await strongroom.secrets.update(admin, { ...at("dev"), secretName: "DATABASE_URL", secretValue: "postgres://dev-2" });
  await strongroom.secrets.delete(admin, { ...at("dev"), secretName: "DATABASE_URL" });
  await strongroom.secrets.create(admin, { ...at("prod"), secretName: "API_KEY", secretValue: "k-1" });
  await strongroom.secrets.delete(admin, { ...at("prod"), secretName: "API_KEY" });
  await printed;
  console.log("subscription closed");
} finally {
  await strongroom.close();
}
