/** HTTP methods the adapter routes. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * One row of the route table: how an HTTP request reaches a core operation.
 *
 * The operation's input is assembled from the JSON body, then the listed query keys, then the
 * path params (later sources win, so a body can never redirect a request to another resource).
 */
export interface Route {
  readonly method: HttpMethod;
  /** Literal segments and `{param}` segments, e.g. `/api/v1/projects/{projectId}`. */
  readonly path: string;
  /** `area.name` of the core operation. */
  readonly operation: string;
  /** Input keys read from the query string. */
  readonly query?: readonly string[];
  /** Success status; 200 unless stated. */
  readonly status?: number;
  /** `sse` routes resolve to an event stream instead of a JSON body. */
  readonly kind?: "json" | "sse";
  /** Also answer the path with one trailing `/`. */
  readonly trailingSlash?: boolean;
}

/** The value an `sse` route's operation resolves to. */
export interface EventStream {
  readonly stream: AsyncIterable<SseFrame>;
  /** Stops the stream and releases what it holds; called once when the client goes away. */
  cancel(): void;
}

export interface SseFrame {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}
