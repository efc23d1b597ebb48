import { anonymous, type Strongroom } from "@strongroom/core";

export const SECRETS = 200;
export const value = (i: number) => `value-${i}-${"x".repeat(40)}`;
export const READ = "SECRET_42";

/** An instance with SECRETS project secrets and the token of a member identity that may read them. */
export async function seed(sr: Strongroom): Promise<{ token: string; path: string }> {
  const boot = await sr.admin.bootstrap(anonymous, { email: "bench@acme.test", password: "correct horse battery", organization: "Bench" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "Bench" });
  const { identity } = await sr.identities.create(admin, { name: "reader", organizationId: boot.organization.id, role: "member" });
  const { identityUniversalAuth } = await sr.identities.attachUniversalAuth(admin, { identityId: identity.id });
  const { clientSecret } = await sr.identities.createClientSecret(admin, { identityId: identity.id });
  await sr.memberships.addIdentity(admin, { projectId: project.id, identityId: identity.id, role: "member" });
  const { accessToken } = await sr.auth.universalAuthLogin(anonymous, { clientId: identityUniversalAuth.clientId, clientSecret });
  await sr.secrets.createMany(admin, {
    projectId: project.id,
    environment: "prod",
    secretPath: "/",
    secrets: Array.from({ length: SECRETS }, (_, i) => ({ secretKey: `SECRET_${i}`, secretValue: value(i) })),
  });
  return { token: accessToken, path: `/api/v4/secrets/${READ}?projectId=${project.id}&environment=prod&secretPath=%2F` };
}

