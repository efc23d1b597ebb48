import { ValidationError } from "@strongroom/core";
import type { Route } from "./routes/route.js";

/** The value of each query key a route lists: one occurrence is a string, several are a list. */
export function queryInput(route: Route, search: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!route.query?.length || !search) return out;
  const params = new URLSearchParams(search);
  for (const key of route.query) {
    const values = params.getAll(key);
    if (values.length === 1) out[key] = values[0];
    else if (values.length > 1) out[key] = values;
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The operation's input: body, then query, then path params, later ones winning, so that what the
 * URL names is what the operation acts on.
 */
export function assembleInput(body: unknown, query: Record<string, unknown>, params: Record<string, string>): unknown {
  const fromUrl = { ...query, ...params };
  if (!isPlainObject(body)) {
    if (Object.keys(fromUrl).length === 0) return body;
    throw new ValidationError([{ path: "", message: "Request body must be a JSON object" }]);
  }
  return { ...body, ...fromUrl };
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
