import { z } from "@strongroom/core/zod";
import type { AnyOperation, OperationDef, Operations } from "@strongroom/core";
import { queryKeys } from "./input.js";
import { pathParams } from "./router.js";
import type { Route } from "./routes/route.js";

type JsonSchema = Record<string, unknown>;

export const OPENAPI_PATH = "/api/docs/openapi.json";
/** The API reference page over this document (`docs-page.ts`). */
export const DOCS_PATH = "/api/docs";

/** Error bodies of SPEC.md "Errors", one schema per status, no other properties. */
const errorSchemas: Record<string, JsonSchema> = {
  BadRequestError: errorSchema(400, { details: {} }),
  UnauthorizedError: errorSchema(401),
  ForbiddenError: errorSchema(403, { details: {} }),
  NotFoundError: errorSchema(404),
  PayloadTooLargeError: errorSchema(413),
  ValidationFailureError: errorSchema(422, { message: {} }, ["reqId", "statusCode", "error"]),
  RateLimitExceededError: errorSchema(429),
  InternalServerError: errorSchema(500),
};

function errorSchema(status: number, extra: Record<string, JsonSchema> = {}, required = ["reqId", "statusCode", "message", "error"]): JsonSchema {
  return {
    type: "object",
    properties: {
      reqId: { type: "string" },
      statusCode: { type: "number", const: status },
      message: { type: "string" },
      error: { type: "string" },
      ...extra,
    },
    required,
    additionalProperties: false,
  };
}

const errorResponse = (description: string, schema: string) => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
});

const commonErrors = {
  "400": errorResponse("Bad request", "BadRequestError"),
  "404": errorResponse("Not found", "NotFoundError"),
  "422": errorResponse("The request does not match its schema", "ValidationFailureError"),
  "429": errorResponse("Too many requests", "RateLimitExceededError"),
  "500": errorResponse("Internal error", "InternalServerError"),
};

const authErrors = {
  "401": errorResponse("Missing, malformed or invalid access token", "UnauthorizedError"),
  "403": errorResponse("Not permitted", "ForbiddenError"),
};

/** Each operation's id in the document: `area.name`, as the registry groups them. */
export function operationIds(operations: Operations): Map<AnyOperation, string> {
  const ids = new Map<AnyOperation, string>();
  for (const [area, members] of Object.entries(operations)) {
    for (const [name, def] of Object.entries(members as Record<string, AnyOperation>)) ids.set(def, `${area}.${name}`);
  }
  return ids;
}

/**
 * Builds the OpenAPI 3.1 document from the route table and each operation's zod schemas. Routes
 * whose operation has no id are left out, as the server does not answer them either.
 */
export function buildOpenApiDocument(routes: readonly Route[], ids: ReadonlyMap<AnyOperation, string>): JsonSchema {
  const components: Record<string, JsonSchema> = { ...errorSchemas };
  const paths: Record<string, Record<string, unknown>> = {};
  const addPath = (path: string, method: string, operation: unknown) => {
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  };

  for (const route of routes) {
    const id = ids.get(route.operation);
    if (!id) continue;
    const operation = describeRoute(route, id, components);
    addPath(route.path, route.method, operation);
    if (route.trailingSlash) addPath(`${route.path}/`, route.method, { ...operation, operationId: `${id}.trailingSlash` });
  }
  addPath(OPENAPI_PATH, "GET", {
    operationId: "docs.openapi",
    summary: "This OpenAPI document",
    responses: {
      "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } },
      "500": errorResponse("Internal error", "InternalServerError"),
    },
  });

  addPath(DOCS_PATH, "GET", {
    operationId: "docs.page",
    summary: "This document as a web page (Swagger UI, served from this server, no CDN)",
    responses: {
      "200": { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } },
      "500": errorResponse("Internal error", "InternalServerError"),
    },
  });

  return {
    openapi: "3.1.0",
    info: { title: "Strongroom API", version: "0.0.1" },
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
    },
  };
}

function describeRoute(route: Route, id: string, components: Record<string, JsonSchema>): JsonSchema {
  const def = route.operation;
  const input = toSchema(def.input, "input", `${id}.input`, components);
  const properties = { ...((input.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  const required = new Set((input.required as string[] | undefined) ?? []);
  const isObject = input.type === "object" || input.properties !== undefined;

  const parameters: JsonSchema[] = [];
  const takeParameter = (name: string, where: "path" | "query") => {
    parameters.push({
      name,
      in: where,
      required: where === "path" || required.has(name),
      schema: properties[name] ?? { type: "string" },
    });
    delete properties[name];
    required.delete(name);
  };
  for (const name of pathParams(route.path)) takeParameter(name, "path");
  for (const name of queryKeys(route)) takeParameter(name, "query");

  const operation: JsonSchema = {
    operationId: id,
    summary: def.summary,
    tags: [id.split(".")[0]],
    responses: {
      [String(route.status ?? 200)]: successResponse(route, id, components),
      ...commonErrors,
      ...(def.audience === "public" ? {} : authErrors),
      ...(hasBody(route) ? { "413": errorResponse("Request body over 1 MiB", "PayloadTooLargeError") } : {}),
    },
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (def.audience !== "public") operation.security = [{ bearerAuth: [] }];

  if (hasBody(route) && (!isObject || Object.keys(properties).length > 0)) {
    const body = isObject ? { ...input, properties, required: [...required] } : input;
    if (Array.isArray(body.required) && body.required.length === 0) delete body.required;
    operation.requestBody = {
      required: !isObject || required.size > 0,
      content: { "application/json": { schema: body } },
    };
  }
  return operation;
}

function successResponse(route: Route, id: string, components: Record<string, JsonSchema>): JsonSchema {
  const def: OperationDef = route.operation;
  if (route.kind === "sse") {
    return { description: "A stream of Server-Sent Events", content: { "text/event-stream": { schema: { type: "string" } } } };
  }
  if (route.kind === "file") {
    // The media type is the literal of the operation's `fileOutput` schema.
    const literal = (def.output as z.ZodType & { shape?: { contentType?: { value?: unknown } } }).shape?.contentType?.value;
    const contentType = typeof literal === "string" ? literal : "application/octet-stream";
    return { description: def.summary || "Success", content: { [contentType]: { schema: { type: "string", contentMediaType: contentType } } } };
  }
  return {
    description: def.summary || "Success",
    content: { "application/json": { schema: toSchema(def.output, "output", `${id}.output`, components) } },
  };
}

const hasBody = (route: Route) => route.method !== "GET";

/**
 * One zod schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1). Shared definitions the
 * converter puts in `$defs` would resolve against the document root, so they move to components.
 */
function toSchema(schema: z.ZodType, io: "input" | "output", prefix: string, components: Record<string, JsonSchema>): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete converted.$schema;
  const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
  delete converted.$defs;
  const componentName = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "_");
  let recursiveRoot = false;
  const rewriteRef = (ref: string): string => {
    if (ref === "#") {
      recursiveRoot = true;
      return `#/components/schemas/${componentName(prefix)}`;
    }
    if (ref.startsWith("#/$defs/")) return `#/components/schemas/${componentName(`${prefix}.${ref.slice(8)}`)}`;
    return ref;
  };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = key === "$ref" && typeof inner === "string" ? rewriteRef(inner) : rewrite(inner);
    }
    return out;
  };
  for (const [name, def] of Object.entries(defs)) components[componentName(`${prefix}.${name}`)] = rewrite(def) as JsonSchema;
  const root = rewrite(converted) as JsonSchema;
  if (recursiveRoot) components[componentName(prefix)] = root;
  return root;
}
