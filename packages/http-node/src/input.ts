import { queryParams, ValidationError } from "@strongroom/core";
import type { z } from "@strongroom/core/zod";
import { pathParams } from "./router.js";
import type { Route } from "./routes/route.js";

/** The top-level keys of an input schema, through the wrappers zod puts around objects. */
function inputFields(schema: z.ZodType): Map<string, z.ZodType> {
  const fields = new Map<string, z.ZodType>();
  const visit = (node: z.ZodType): void => {
    const def = (node as unknown as { _zod: { def: Record<string, any> } })._zod.def;
    switch (def.type) {
      case "object":
        for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) fields.set(key, field);
        return;
      case "pipe":
        return visit(def.in);
      case "union":
        for (const option of def.options) visit(option);
        return;
      case "intersection":
        visit(def.left);
        visit(def.right);
        return;
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
        return visit(def.innerType);
      default:
        return;
    }
  };
  visit(schema);
  return fields;
}

/**
 * The query keys a route reads, from its operation's input schema: every field but the path's
 * params for GET and DELETE; for other methods only fields marked with `queryParam`.
 */
export function queryKeys(route: Route): string[] {
  const inPath = new Set(pathParams(route.path));
  const readsAll = route.method === "GET" || route.method === "DELETE";
  return [...inputFields(route.operation.input)]
    .filter(([key, field]) => !inPath.has(key) && (readsAll || isQueryParam(field)))
    .map(([key]) => key);
}

function isQueryParam(field: z.ZodType): boolean {
  for (let node: any = field; node; node = node._zod.def.innerType) {
    if (queryParams.has(node)) return true;
  }
  return false;
}

/** The value of each listed query key: one occurrence is a string, several are a list. */
export function queryInput(keys: readonly string[], search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!keys.length || !search) return out;
  const found = wantedPairs(keys, search);
  if (found === null) return parsedQueryInput(keys, search, out);
  // In the order of `keys`, as URLSearchParams gave them.
  for (const key of keys) {
    const values = found.get(key);
    if (values !== undefined) out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/**
 * The listed keys' values, split and decoded as URLSearchParams does (application/x-www-form-
 * urlencoded), without building the whole parsed list; null when a name or value needs the
 * lenient decoding of a malformed escape, which only URLSearchParams reproduces.
 */
function wantedPairs(keys: readonly string[], search: string): Map<string, string[]> | null {
  const found = new Map<string, string[]>();
  for (const pair of search.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = formDecoded(eq < 0 ? pair : pair.slice(0, eq));
    if (name === null) return null;
    if (!keys.includes(name)) continue;
    const value = eq < 0 ? "" : formDecoded(pair.slice(eq + 1));
    if (value === null) return null;
    const values = found.get(name);
    if (values) values.push(value);
    else found.set(name, [value]);
  }
  return found;
}

/** `+` as a space, then percent-decoding; null for an escape decodeURIComponent refuses. */
function formDecoded(text: string): string | null {
  const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return null;
  }
}

/** The query as URLSearchParams reads it (the fallback for malformed escapes, and the reference the split must match). */
export function parsedQueryInput(keys: readonly string[], search: string, out: Record<string, string | string[]>): Record<string, string | string[]> {
  const params = new URLSearchParams(search);
  for (const key of keys) {
    const values = params.getAll(key);
    if (values.length === 1) out[key] = values[0]!;
    else if (values.length > 1) out[key] = values;
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The names an input may give its project by: a path naming it under one must not be overridden under another. */
const PROJECT_NAMES = ["projectId", "workspaceId", "projectSlug", "workspaceSlug"];

const withoutProjectNames = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([key]) => !PROJECT_NAMES.includes(key)));

/**
 * The operation's input: body, then query, then path params, later ones winning, so that what the
 * URL names is what the operation acts on. When the path names the project (`{workspaceId}`), the
 * body and query name none, under any of its names: a body's `projectId` would otherwise win over
 * the path's `workspaceId` (issue 15, principle 12).
 */
export function assembleInput(body: unknown, query: Record<string, unknown>, params: Record<string, string>): unknown {
  const pathNamesProject = PROJECT_NAMES.some((name) => name in params);
  const fromUrl = { ...(pathNamesProject ? withoutProjectNames(query) : query), ...params };
  if (!isPlainObject(body)) {
    if (Object.keys(fromUrl).length === 0) return body;
    throw new ValidationError([{ path: "", message: "Request body must be a JSON object" }]);
  }
  return { ...(pathNamesProject ? withoutProjectNames(body) : body), ...fromUrl };
}

/** Path and query string of a request target; absolute-form targets keep only their path. */
export function splitTarget(target: string): { path: string; search: string } {
  let rest = target;
  if (!rest.startsWith("/")) {
    const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rest);
    rest = scheme ? rest.slice(scheme[0].length) || "/" : rest;
  }
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf("?");
  return question < 0 ? { path: rest, search: "" } : { path: rest.slice(0, question), search: rest.slice(question + 1) };
}
