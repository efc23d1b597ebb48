import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApiResponse, type Backend, backendAvailable, bootstrap, createProject, expectError, startApi, type TestApi } from "../../src/testing/harness.js";

/** Shared set-up of the certificate-manager API suites: an instance, its admin token and a cert-manager project. */

export interface CertSuite {
  api: TestApi;
  token: string;
  orgId: string;
  projectId: string;
  /** A request as the admin; a non-2xx answer fails the test with its body. */
  ok<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  send(method: string, path: string, body?: unknown): Promise<ApiResponse>;
}

/**
 * Registers the suite's hooks and returns a getter for the suite (undefined while skipped) and
 * `maybe`, an `it` that skips when the backend is not available here.
 */
export function certSuite(backend: Backend) {
  let suite: CertSuite | undefined;
  let available = true;
  beforeAll(async () => {
    available = await backendAvailable(backend);
    if (!available) return;
    const api = await startApi(backend);
    const world = await bootstrap(api);
    const token = world.admin.token;
    const project = await createProject(api, token, { projectName: "PKI", type: "cert-manager" });
    const send = (method: string, path: string, body?: unknown) => api.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
    suite = {
      api,
      token,
      orgId: world.admin.orgId,
      projectId: project.id,
      send,
      async ok(method, path, body) {
        const res = await send(method, path, body);
        if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(res.body)}`);
        return res.body;
      },
    };
  });
  afterAll(async () => {
    await suite?.api.close();
  });
  const maybe = (name: string, fn: (s: CertSuite) => Promise<void>) => it(name, async (ctx) => (available && suite ? fn(suite) : ctx.skip()));
  return { maybe };
}

/** `?a=1&b=2` from the defined entries. */
export const q = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
};

/** Each value in `accepted` answers 2xx and each in `refused` answers `status` (422 unless told): a bound checked on both sides. */
export async function expectBound(
  send: (value: unknown) => Promise<ApiResponse>,
  accepted: unknown[],
  refused: unknown[],
  status = 422,
): Promise<void> {
  for (const value of accepted) {
    const res = await send(value);
    expect(res.status, `${JSON.stringify(value)} should be accepted: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  }
  for (const value of refused) expectError(await send(value), status);
}

export const DAY = 86_400_000;

export async function createCa(s: CertSuite, body: Record<string, unknown>): Promise<any> {
  const { ca } = await s.ok("POST", "/api/v1/cert-manager/ca/internal", { projectId: s.projectId, type: "root", ttlDays: 365, keyAlgorithm: "EC_prime256v1", ...body });
  return ca;
}

export async function createProfile(s: CertSuite, body: Record<string, unknown>): Promise<any> {
  const { certificateProfile } = await s.ok("POST", "/api/v1/cert-manager/certificate-profiles", { projectId: s.projectId, ...body });
  return certificateProfile;
}
