import type { ErrorCode } from "@strongroom/core";

/** The HTTP status of each core error code (DESIGN.md §9): the one place statuses are decided. */
export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  BadRequest: 400,
  UnauthorizedError: 401,
  PermissionDenied: 403,
  PermissionBoundaryError: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  ValidationFailure: 422,
  RateLimitExceeded: 429,
  InternalServerError: 500,
  ServiceUnavailable: 503,
};
