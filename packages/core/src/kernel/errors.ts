/**
 * Typed errors raised by core operations. Each carries a `code` — the error name clients see in
 * error bodies (DESIGN.md §9) — and nothing about transports: the HTTP adapter owns the table
 * from code to status.
 */
export type ErrorCode =
  | "BadRequest"
  | "UnauthorizedError"
  | "PermissionDenied"
  | "PermissionBoundaryError"
  | "NotFound"
  | "Conflict"
  | "PayloadTooLarge"
  | "ValidationFailure"
  | "RateLimitExceeded"
  | "ServiceUnavailable"
  | "InternalServerError";

export class StrongroomError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = code;
  }
}

export class BadRequestError extends StrongroomError {
  constructor(message: string, details?: unknown) {
    super("BadRequest", message, details);
  }
}

export class UnauthorizedError extends StrongroomError {
  constructor(message = "Authentication required") {
    super("UnauthorizedError", message);
  }
}

export class PermissionDeniedError extends StrongroomError {
  constructor(message = "You are not allowed to perform this action", details?: unknown) {
    super("PermissionDenied", message, details);
  }
}

export class PermissionBoundaryError extends StrongroomError {
  constructor(message: string, missingPermissions: unknown[]) {
    super("PermissionBoundaryError", message, { missingPermissions });
  }
}

export class NotFoundError extends StrongroomError {
  constructor(message = "Not found") {
    super("NotFound", message);
  }
}

export class PayloadTooLargeError extends StrongroomError {
  constructor(message = "Request body is too large") {
    super("PayloadTooLarge", message);
  }
}

/** Request-schema failures. `issues` carries each problem with its path. */
export class ValidationError extends StrongroomError {
  constructor(readonly issues: { path: string; message: string }[]) {
    super("ValidationFailure", issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
  }
}

/** Too many attempts; `retryAfterSeconds` says when trying again makes sense. */
export class RateLimitError extends StrongroomError {
  constructor(
    message = "Too many requests",
    readonly retryAfterSeconds?: number,
  ) {
    super("RateLimitExceeded", message);
  }
}

/** Not now: a dependency is down or a bound is reached; `retryAfterSeconds` when that is known. */
export class ServiceUnavailableError extends StrongroomError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super("ServiceUnavailable", message);
  }
}

/** What a caller is told about a failure that is not one of ours: nothing. */
export const internalError = (): StrongroomError => new StrongroomError("InternalServerError", "Something went wrong");

export { UniqueViolationError } from "../storage/table.js";
