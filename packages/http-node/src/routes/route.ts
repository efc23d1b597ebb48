import type { AnyOperation } from "@strongroom/core";
import type { SseSource } from "../sse.js";

/** HTTP methods the adapter routes. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * One row of the route table: how an HTTP request reaches a core operation.
 *
 * The operation's input is assembled from the JSON body, then the query string, then the path
 * params (later sources win, so a body can never redirect a request to another resource). Which
 * query keys are read comes from the operation's input schema: every key for GET and DELETE
 * (clients send DELETE without a body), only the keys the schema marks as query parameters
 * (`queryParam`) for other methods.
 */
export interface Route {
  readonly method: HttpMethod;
  /** Literal segments and `{param}` segments, e.g. `/api/v1/projects/{projectId}`. */
  readonly path: string;
  /** The core operation, by reference: a misspelt operation does not compile. */
  readonly operation: AnyOperation;
  /** Success status; 200 unless stated. */
  readonly status?: number;
  /**
   * `sse` routes resolve to an event subscription streamed as Server-Sent Events; `file` routes to
   * a file answer (`{contentType, base64}`, core's `fileOutput`) sent as its bytes.
   */
  readonly kind?: "json" | "sse" | "file";
  /** For `sse` routes: how the operation's result becomes frames. Default: a project event subscription's deliveries. */
  readonly frames?: (result: unknown) => SseSource;
  /** Also answer the path with one trailing `/`. */
  readonly trailingSlash?: boolean;
  /** Answer with a strong ETag of the body, and 304 when `If-None-Match` names it. */
  readonly etag?: boolean;
}

export type RouteOptions = Omit<Route, "method" | "path" | "operation">;

const row =
  (method: HttpMethod) =>
  (path: string, operation: AnyOperation, options: RouteOptions = {}): Route => ({ method, path, operation, ...options });

export const get = row("GET");
export const post = row("POST");
export const patch = row("PATCH");
export const put = row("PUT");
export const del = row("DELETE");
