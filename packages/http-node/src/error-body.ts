import { RateLimitError, StrongroomError, ValidationError } from "@strongroom/core";

/** The JSON error body of SPEC.md "Errors" / DESIGN.md §9. */
export interface ErrorBody {
  reqId: string;
  statusCode: number;
  message: unknown;
  error: string;
  details?: unknown;
}

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;
  /** Not one of ours: the caller logs it, the client sees only the generic 500. */
  readonly unexpected: boolean;
}

const INTERNAL = { message: "Something went wrong", error: "InternalServerError" } as const;

/** Statuses whose body may carry `details` (SPEC.md "Errors"). */
const DETAIL_STATUSES = new Set([400, 403]);

/** Maps anything thrown while serving a request to the status, body and headers the client gets. */
export function toErrorResponse(thrown: unknown, reqId: string): ErrorResponse {
  if (!(thrown instanceof StrongroomError) || thrown.status >= 500 || thrown.status < 400) {
    return {
      status: 500,
      body: { reqId, statusCode: 500, ...INTERNAL },
      headers: {},
      unexpected: true,
    };
  }
  const body: ErrorBody = {
    reqId,
    statusCode: thrown.status,
    message: thrown instanceof ValidationError ? thrown.issues : thrown.message,
    error: thrown.errorName,
  };
  if (DETAIL_STATUSES.has(thrown.status) && thrown.details !== undefined) body.details = thrown.details;
  const headers: Record<string, string> = {};
  if (thrown instanceof RateLimitError) headers["retry-after"] = String(Math.max(1, Math.ceil(thrown.retryAfterSeconds ?? 1)));
  return { status: thrown.status, body, headers, unexpected: false };
}
