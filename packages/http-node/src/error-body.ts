import { RateLimitError, ServiceUnavailableError, StrongroomError, ValidationError } from "@strongroom/core";
import { StorageUnavailableError } from "@strongroom/core/storage";
import { STATUS_OF } from "./status.js";

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
  if (thrown instanceof StorageUnavailableError) {
    // Not the request's fault and likely to pass: 503 with the reason, and logged as what it is.
    const status = STATUS_OF.ServiceUnavailable;
    return {
      status,
      body: { reqId, statusCode: status, message: thrown.reason, error: "ServiceUnavailable" },
      headers: { "retry-after": "1" },
      unexpected: true,
    };
  }
  const status = thrown instanceof StrongroomError ? STATUS_OF[thrown.code] : 500;
  if (!(thrown instanceof StrongroomError) || status === 500 || status === undefined) {
    return {
      status: 500,
      body: { reqId, statusCode: 500, ...INTERNAL },
      headers: {},
      unexpected: true,
    };
  }
  const body: ErrorBody = {
    reqId,
    statusCode: status,
    message: thrown instanceof ValidationError ? thrown.issues : thrown.message,
    error: thrown.code,
  };
  if (DETAIL_STATUSES.has(status) && thrown.details !== undefined) body.details = thrown.details;
  const headers: Record<string, string> = {};
  if (thrown instanceof RateLimitError || thrown instanceof ServiceUnavailableError) {
    headers["retry-after"] = String(Math.max(1, Math.ceil(thrown.retryAfterSeconds ?? 1)));
  }
  return { status, body, headers, unexpected: false };
}
