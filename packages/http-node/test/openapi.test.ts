import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStorage, createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
import { buildOpenApiDocument, createHandler, get, operationIds, routes } from "@strongroom/http-node";
import { testOperations, testRoutes, createFakeStrongroom } from "./helpers/fake-strongroom.js";
import { startTestServer, type TestServer } from "./helpers/http.js";

async function expectValidOpenApi31(document: unknown) {
  const validator = new Validator();
  const result = await validator.validate(document as Record<string, unknown>);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe("3.1");
}

describe("OpenAPI document", () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer();
  });
  afterAll(() => api.close());

  it("is served publicly at /api/docs/openapi.json and is valid OpenAPI 3.1", async () => {
    const reply = await api.send("GET", "/api/docs/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.json.openapi).toBe("3.1.0");
    expect(reply.json.info.version).toBe("0.0.1");
    await expectValidOpenApi31(reply.json);
  });

  it("describes path params, query keys and the body from the operation's input schema", async () => {
    const doc = (await api.send("GET", "/api/docs/openapi.json")).json;
    const list = doc.paths["/api/v1/projects/{projectId}/items"].get;
    expect(list.parameters).toEqual([
      { name: "projectId", in: "path", required: true, schema: { type: "string" } },
      { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100 } },
      { name: "tag", in: "query", required: false, schema: expect.any(Object) },
    ]);
    expect(list.requestBody).toBeUndefined();

    const echo = doc.paths["/api/v1/projects/{projectId}/echo"].post;
    const body = echo.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual(["count", "name"]);
    expect(body.required).toEqual(["name"]);
    expect(echo.security).toEqual([{ bearerAuth: [] }]);
    expect(echo.responses["200"].content["application/json"].schema.properties).toHaveProperty("actor");
    expect(doc.paths["/api/v1/projects/{projectId}/echo/"]).toBeDefined();
  });

  it("marks public operations without security and uses SPEC's error bodies", async () => {
    const doc = (await api.send("GET", "/api/docs/openapi.json")).json;
    const status = doc.paths["/api/status"].get;
    expect(status.security).toBeUndefined();
    expect(status.responses["401"]).toBeUndefined();
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" });
    const notFound = doc.components.schemas.NotFoundError;
    expect(notFound.required).toEqual(["reqId", "statusCode", "message", "error"]);
    expect(notFound.additionalProperties).toBe(false);
    expect(doc.components.schemas.ValidationFailureError.required).toEqual(["reqId", "statusCode", "error"]);
    expect(doc.paths["/api/v1/projects/{projectId}/events"].post.responses["200"].content).toHaveProperty("text/event-stream");
  });

  it("leaves out routes whose operation does not exist", () => {
    const fake = createFakeStrongroom();
    const ghost = { ...testOperations.status, name: "ghost" };
    const doc = buildOpenApiDocument([...testRoutes, get("/api/v1/ghost", ghost)], operationIds(fake.strongroom.operations)) as any;
    expect(doc.paths["/api/v1/ghost"]).toBeUndefined();
  });
});

/** Every endpoint SPEC.md's Endpoints part names. */
const SPEC_ENDPOINTS = [
  "POST /api/v1/agent-vault/proxies",
  "POST /api/v1/projects",
  "PATCH /api/v1/projects/{projectId}/memberships/{membershipId}",
  "POST /api/v1/workspace/{workspaceId}/memberships/details",
  "GET /api/v2/workspace/{projectId}/roles",
  "GET /api/v1/additional-privilege/identity",
  "GET /api/v1/additional-privilege/identity/{privilegeSlug}",
  "PATCH /api/v1/additional-privilege/identity",
  "DELETE /api/v1/additional-privilege/identity",
  "POST /api/v1/additional-privilege/identity/temporary",
  "GET /api/v2/identity-project-additional-privilege",
  "GET /api/v2/identity-project-additional-privilege/slug/{privilegeSlug}",
  "PATCH /api/v2/identity-project-additional-privilege/{id}",
  "DELETE /api/v2/identity-project-additional-privilege/{id}",
  "PATCH /api/v1/proxied-services/{serviceId}",
  "PATCH /api/v1/cert-manager/certificate-profiles/{id}",
  "POST /api/v1/cert-manager/discovery-jobs",
  "GET /api/v1/cert-manager/installations",
  "PATCH /api/v1/cert-manager/alerts/{alertId}",
  "POST /api/v3/secrets/tags/{secretName}",
  "PATCH /api/v4/secrets/batch",
  "POST /api/v1/events/subscribe/project-events",
];

describe("OpenAPI document of the real server", () => {
  let strongroom: Strongroom;
  beforeAll(async () => {
    strongroom = await createStrongroom({ storage: createMemoryStorage(), rootKey: generateRootKey() });
  });
  afterAll(() => strongroom.close());

  it("covers every route the server serves and is valid OpenAPI 3.1", async () => {
    const ids = operationIds(strongroom.operations);
    const doc = buildOpenApiDocument(routes, ids) as any;
    await expectValidOpenApi31(doc);
    for (const route of routes.filter((r) => ids.has(r.operation))) {
      expect(doc.paths[route.path]?.[route.method.toLowerCase()]?.operationId).toBe(ids.get(route.operation));
    }
  });

  it("documents every endpoint of SPEC.md's Endpoints part", () => {
    const doc = buildOpenApiDocument(routes, operationIds(strongroom.operations)) as { paths: Record<string, Record<string, unknown>> };
    // Param names differ between SPEC.md and some routes; compare the shapes of the paths.
    const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${shape(path)}`)));
    const missing = SPEC_ENDPOINTS.filter((endpoint) => {
      const [method, path] = endpoint.split(" ");
      return !documented.has(`${method} ${shape(path)}`);
    });
    expect(missing).toEqual([]);
  });

  it("has an operation in core for every route in the table", () => {
    const ids = operationIds(strongroom.operations);
    const missing = routes.filter((route) => !ids.has(route.operation)).map((route) => route.operation.name);
    expect(missing).toEqual([]);
    // And the handler builds over the full table without complaint.
    const warnings: string[] = [];
    createHandler(strongroom, { logger: (line) => warnings.push(line) });
    expect(warnings).toEqual([]);
  });
});
