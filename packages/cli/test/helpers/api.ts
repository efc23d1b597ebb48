/** JSON over fetch, for setting up what the CLI is then tested against. */
export async function api(url: string, method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return body;
}

export interface Instance {
  admin: string;
  orgId: string;
  projectId: string;
  /** A machine identity with universal auth and the given project role. */
  clientId: string;
  clientSecret: string;
}

/** Bootstrap, one project, one machine identity with universal auth and `role` on the project. */
export async function setUpInstance(url: string, role = "member"): Promise<Instance> {
  const boot = await api(url, "POST", "/api/v1/admin/bootstrap", {
    body: { email: "ops@example.com", password: "a long password", organization: "Acme" },
  });
  const admin: string = boot.identity.credentials.token;
  const orgId: string = boot.organization.id;
  const { project } = await api(url, "POST", "/api/v1/projects", { token: admin, body: { projectName: "Payments" } });
  const identity = await machineIdentity(url, admin, orgId, project.id, role);
  return { admin, orgId, projectId: project.id, ...identity };
}

export async function machineIdentity(url: string, admin: string, orgId: string, projectId: string, role: string) {
  const { identity } = await api(url, "POST", "/api/v1/identities", { token: admin, body: { name: `ci-${role}`, organizationId: orgId, role: "member" } });
  const { identityUniversalAuth } = await api(url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}`, { token: admin });
  const { clientSecret } = await api(url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}/client-secrets`, { token: admin });
  await api(url, "POST", `/api/v2/workspace/${projectId}/identity-memberships/${identity.id}`, { token: admin, body: { role } });
  return { clientId: identityUniversalAuth.clientId as string, clientSecret: clientSecret as string };
}
