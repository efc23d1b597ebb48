import type { CredentialDefinition, HeaderPurpose, SubstitutionSurface } from "./credentials.js";
import { headerNameProblem, isSafeHeaderValue, isSubstitutableHeader } from "./http-header.js";
import { placeholderReplacer, surfaceEncoder, type Replacer } from "./substitution.js";

/**
 * Applies resolved credential values to a request the proxy is about to send upstream. Pure and
 * all-or-nothing: every credential is checked before anything is written, and a value that cannot
 * travel safely is refused with an error that never contains the value.
 */
export type HeaderValue = string | readonly string[];

export interface ProxiedRequest {
  /** Names in any case; a rewritten header replaces every case variant of its name. */
  readonly headers: Readonly<Record<string, HeaderValue | undefined>>;
  /** Raw (percent-encoded) path without the query. */
  readonly path: string;
  /** Raw query string without the leading "?". */
  readonly query: string;
  readonly body: Buffer | string;
  readonly contentType: string | null;
}

export type InjectableCredential = Pick<
  CredentialDefinition,
  "role" | "headerName" | "headerPrefix" | "headerPurpose" | "placeholderValue" | "substitutionSurfaces"
> & { readonly id?: string };

export interface ResolvedCredential {
  readonly credential: InjectableCredential;
  readonly value: string;
}

export type InjectedRequest<R extends ProxiedRequest> = Omit<R, "headers"> & { headers: Record<string, HeaderValue> };

export class CredentialInjectionError extends Error {
  constructor(
    /** The credential's id, or `#index` in the resolved list when it has none. */
    readonly credential: string,
    message: string,
  ) {
    super(`credential ${credential}: ${message}`);
    this.name = "CredentialInjectionError";
  }
}

interface HeaderWrite {
  readonly name: string;
  readonly value: string;
}

interface Plan {
  readonly headerWrites: HeaderWrite[];
  readonly substitutions: ReadonlyMap<SubstitutionSurface, ReadonlyMap<string, string>>;
}

export function applyCredentials<R extends ProxiedRequest>(request: R, resolved: readonly ResolvedCredential[]): InjectedRequest<R> {
  const plan = planFor(resolved);
  const replacerFor = (surface: SubstitutionSurface, contentType: string | null = null) =>
    placeholderReplacer(plan.substitutions.get(surface), surfaceEncoder(surface, contentType));

  // Substitution reads only what the agent sent; headers written from credentials come after, so
  // a secret is never scanned for placeholders.
  const headers = substituteHeaders(request.headers, replacerFor("header"));
  const body = substituteBody(request.body, replacerFor("body", request.contentType));
  for (const write of plan.headerWrites) setHeader(headers, write.name, write.value);
  if (body !== request.body) updateContentLength(headers, body);

  return {
    ...request,
    headers,
    path: replacerFor("path").text(request.path),
    query: replacerFor("query").text(request.query),
    body,
  };
}

/**
 * A proxy applies the same resolved list (one cached decision) to request after request, and
 * checking and planning it costs more than the injection itself: the plan is kept for as long as
 * that list is. A list that fails its checks is never kept, so it is refused every time.
 */
const plans = new WeakMap<readonly ResolvedCredential[], Plan>();

function planFor(resolved: readonly ResolvedCredential[]): Plan {
  let plan = plans.get(resolved);
  if (!plan) plans.set(resolved, (plan = planInjection(resolved)));
  return plan;
}

function planInjection(resolved: readonly ResolvedCredential[]): Plan {
  const headerWrites: HeaderWrite[] = [];
  const substitutions = new Map<SubstitutionSurface, Map<string, string>>();
  const basic: Partial<Record<HeaderPurpose, string>> = {};

  resolved.forEach(({ credential, value }, index) => {
    const label = credential.id ?? `#${index}`;
    const refuse = (message: string) => new CredentialInjectionError(label, message);
    const surfaces = credential.role === "header-rewrite" ? null : credential.substitutionSurfaces;
    if ((surfaces === null || surfaces.includes("header")) && !isSafeHeaderValue(value)) {
      throw refuse("the value contains CR, LF or another character not allowed in an HTTP header; refusing to inject it");
    }
    if (surfaces !== null) {
      if (!credential.placeholderValue) throw refuse("has no placeholderValue");
      for (const surface of surfaces) {
        const forSurface = substitutions.get(surface) ?? new Map<string, string>();
        forSurface.set(credential.placeholderValue, value);
        substitutions.set(surface, forSurface);
      }
    } else if (credential.headerPurpose !== null) {
      if (basic[credential.headerPurpose] !== undefined) throw refuse(`a second Basic auth ${credential.headerPurpose}`);
      // RFC 7617: the first colon separates user-id from password, so a user-id cannot hold one.
      if (credential.headerPurpose === "username" && value.includes(":")) throw refuse("a Basic auth username cannot contain ':'");
      basic[credential.headerPurpose] = value;
    } else {
      const problem = credential.headerName === null ? "has no headerName" : headerNameProblem(credential.headerName);
      if (problem) throw refuse(problem);
      const prefix = credential.headerPrefix;
      if (prefix && !isSafeHeaderValue(prefix)) throw refuse("headerPrefix contains characters not allowed in an HTTP header");
      headerWrites.push({ name: credential.headerName!, value: prefix ? `${prefix} ${value}` : value });
    }
  });

  const basicWrite = planBasicAuth(basic);
  if (basicWrite) headerWrites.push(basicWrite);
  return { headerWrites, substitutions };
}

function planBasicAuth({ username, password }: Partial<Record<HeaderPurpose, string>>): HeaderWrite | null {
  if (username === undefined && password === undefined) return null;
  if (username === undefined || password === undefined) {
    throw new CredentialInjectionError("basic-auth", `Basic auth needs both a username and a password; the ${username === undefined ? "username" : "password"} is missing`);
  }
  return { name: "Authorization", value: `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}` };
}

/** Framing, connection and routing headers are copied as they are: a credential never lands where it could move the request. */
function substituteHeaders(headers: ProxiedRequest["headers"], replacer: Replacer): Record<string, HeaderValue> {
  const result: Record<string, HeaderValue> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (!isSubstitutableHeader(name)) result[name] = typeof value === "string" ? value : [...value];
    else result[name] = typeof value === "string" ? replacer.text(value) : value.map(replacer.text);
  }
  return result;
}

function substituteBody(body: Buffer | string, replacer: Replacer): Buffer | string {
  if (replacer.isEmpty) return body;
  if (typeof body === "string") return replacer.text(body);
  return replacer.bytes(body);
}

function setHeader(headers: Record<string, HeaderValue>, name: string, value: string): void {
  for (const existing of Object.keys(headers)) {
    if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  }
  headers[name] = value;
}

/** A stale length would desynchronise the upstream connection, so it follows the new body. */
function updateContentLength(headers: Record<string, HeaderValue>, body: Buffer | string): void {
  const key = Object.keys(headers).find((name) => name.toLowerCase() === "content-length");
  if (key !== undefined) headers[key] = String(Buffer.byteLength(body));
}
