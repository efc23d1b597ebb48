import { request } from "node:https";

/** HTTPS with a private CA (`ca`, PEM), which fetch cannot be told about: status and body text. */
function httpsText(url: string, method: string, headers: Record<string, string>, payload: string | undefined, ca: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(url, { method, headers, ca }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** JSON over fetch (over node:https for a server with a private CA), for setting up what the CLI is then tested against. */
export async function api(url: string, method: string, path: string, options: { token?: string; body?: unknown; ca?: string } = {}) {
  const headers = {
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
  };
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const { status, text } = options.ca
    ? await httpsText(url + path, method, headers, payload, options.ca)
    : await fetch(url + path, { method, headers, body: payload }).then(async (res) => ({ status: res.status, text: await res.text() }));
  const body = text ? JSON.parse(text) : undefined;
  if (status >= 400) throw new Error(`${method} ${path}: ${status} ${text}`);
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
export async function setUpInstance(url: string, role = "member", ca?: string): Promise<Instance> {
  const boot = await api(url, "POST", "/api/v1/admin/bootstrap", {
    body: { email: "ops@example.com", password: "a long password", organization: "Acme" },
    ca,
  });
  const admin: string = boot.identity.credentials.token;
  const orgId: string = boot.organization.id;
  const { project } = await api(url, "POST", "/api/v1/projects", { token: admin, body: { projectName: "Payments" }, ca });
  const identity = await machineIdentity(url, admin, orgId, project.id, role, ca);
  return { admin, orgId, projectId: project.id, ...identity };
}

export async function machineIdentity(url: string, admin: string, orgId: string, projectId: string, role: string, ca?: string) {
  const { identity } = await api(url, "POST", "/api/v1/identities", { token: admin, body: { name: `ci-${role}`, organizationId: orgId, role: "member" }, ca });
  const { identityUniversalAuth } = await api(url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}`, { token: admin, ca });
  const { clientSecret } = await api(url, "POST", `/api/v1/auth/universal-auth/identities/${identity.id}/client-secrets`, { token: admin, ca });
  await api(url, "POST", `/api/v2/workspace/${projectId}/identity-memberships/${identity.id}`, { token: admin, body: { role }, ca });
  return { clientId: identityUniversalAuth.clientId as string, clientSecret: clientSecret as string };
}
