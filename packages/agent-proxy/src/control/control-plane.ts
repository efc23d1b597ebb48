import { agentChannel as channel } from "@strongroom/core/agent";
import type { z } from "@strongroom/core/zod";
import { describeTlsCode, serverClient, type ServerClient } from "./server-trust.js";

/**
 * The proxy's client for the server's agent-proxy channel (DESIGN.md §7). Answers are checked
 * against the server's own output schemas, so the two sides cannot drift apart unnoticed.
 */


export type EnrollAnswer = z.output<typeof channel.enroll.output>;
export type ProxySettings = EnrollAnswer["config"];
export type ProxyState = z.output<typeof channel.config.output>;
export type ResolveDecision = z.output<typeof channel.resolve.output>["decision"];
export type BrokerDecision = Extract<ResolveDecision, { action: "broker" }>;

export interface ResolveQuestion {
  sessionToken: string;
  host: string;
  port: number;
  tls: boolean;
}

const PATHS = {
  enroll: "/api/v1/agent-vault/proxy/enroll",
  heartbeat: "/api/v1/agent-vault/proxy/heartbeat",
  config: "/api/v1/agent-vault/proxy/config",
  resolve: "/api/v1/agent-vault/proxy/resolve",
} as const;

/** The server no longer accepts this proxy's token: it was revoked, or the proxy deleted. */
export class ProxyRevokedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProxyRevokedError";
  }
}

/** No usable answer (network error, timeout, 5xx, 429): worth trying again later. */
export class ControlPlaneUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ControlPlaneUnavailableError";
  }
}

/** A definite refusal other than 401 on an authenticated call (e.g. a spent enrollment token). */
export class ControlPlaneRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ControlPlaneRefusedError";
  }
}

export interface ControlPlaneOptions {
  /** Per call. Default 10 s. */
  timeoutMs?: number;
  /** PEM CAs trusted for the server's certificate besides Node's roots (`--ca-file`). */
  ca?: readonly string[];
}

export class ControlPlane {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  readonly #client: ServerClient;
  #accessToken: string | null = null;

  constructor(baseUrl: string, options: ControlPlaneOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#client = serverClient(options.ca);
  }

  /** Closes the connections kept to the server. */
  close(): Promise<void> {
    return this.#client.close();
  }

  useAccessToken(token: string): void {
    this.#accessToken = token;
  }

  async enroll(enrollmentToken: string, rootCaCertificate: string): Promise<EnrollAnswer> {
    const answer = await this.#call("POST", PATHS.enroll, { enrollmentToken, rootCaCertificate }, false);
    return channel.enroll.output.parse(answer.body);
  }

  async heartbeat(): Promise<ProxySettings> {
    const answer = await this.#call("POST", PATHS.heartbeat, {}, true);
    return channel.heartbeat.output.parse(answer.body).config;
  }

  async state(): Promise<ProxyState> {
    const answer = await this.#call("GET", PATHS.config, undefined, true);
    return channel.config.output.parse(answer.body);
  }

  /** The server's decision, or null when it no longer knows the session (expired or revoked since the last poll). */
  async resolve(question: ResolveQuestion): Promise<ResolveDecision | null> {
    const answer = await this.#call("POST", PATHS.resolve, question, true, [404]);
    if (answer.status === 404) return null;
    return channel.resolve.output.parse(answer.body).decision;
  }

  async #call(method: string, path: string, body: unknown, authenticated: boolean, expected: number[] = []) {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (authenticated) {
      if (!this.#accessToken) throw new ProxyRevokedError("this proxy has no access token; it must enroll first");
      headers.authorization = `Bearer ${this.#accessToken}`;
    }
    let response: Response;
    let text: string;
    try {
      response = await this.#client.fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ControlPlaneUnavailableError(`${method} ${path}: ${describeFetchError(error)}`);
    }
    const parsed = parseJson(text);
    if (response.ok || expected.includes(response.status)) return { status: response.status, body: parsed };
    const message = typeof (parsed as { message?: unknown })?.message === "string" ? (parsed as { message: string }).message : text.slice(0, 200);
    if (response.status === 401 && authenticated) throw new ProxyRevokedError(`the server refused this proxy's token: ${message}`);
    if (response.status >= 500 || response.status === 429) {
      throw new ControlPlaneUnavailableError(`${method} ${path}: the server answered ${response.status}`);
    }
    throw new ControlPlaneRefusedError(response.status, message);
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** fetch hides the useful part (ECONNREFUSED, a timeout) in `cause`. */
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "timed out";
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? describeTlsCode(cause.code) : (cause?.message ?? error.message);
}
