/**
 * Typed errors raised by core operations. The HTTP adapter maps each to its status and
 * `error` name (DESIGN.md §9); nothing else decides a status code.
 */
export type ErrorName =
  | "BadRequest"
  | "UnauthorizedError"
  | "PermissionDenied"
  | "PermissionBoundaryError"
  | "NotFound"
  | "Conflict"
  | "PayloadTooLarge"
  | "ValidationFailure"
  | "RateLimitExceeded"
  | "InternalServerError";

export class StrongroomError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: ErrorName,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = errorName;
  }
}

export class BadRequestError extends StrongroomError {
  constructor(message: string, details?: unknown) {
    super(400, "BadRequest", message, details);
  }
}

export class UnauthorizedError extends StrongroomError {
  constructor(message = "Authentication required") {
    super(401, "UnauthorizedError", message);
  }
}

export class PermissionDeniedError extends StrongroomError {
  constructor(message = "You are not allowed to perform this action", details?: unknown) {
    super(403, "PermissionDenied", message, details);
  }
}

export class PermissionBoundaryError extends StrongroomError {
  constructor(message: string, missingPermissions: unknown[]) {
    super(403, "PermissionBoundaryError", message, { missingPermissions });
  }
}

export class NotFoundError extends StrongroomError {
  constructor(message = "Not found") {
    super(404, "NotFound", message);
  }
}

export class PayloadTooLargeError extends StrongroomError {
  constructor(message = "Request body is too large") {
    super(413, "PayloadTooLarge", message);
  }
}

/** Request-schema failures (422). `issues` carries each problem with its path. */
export class ValidationError extends StrongroomError {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(422, "ValidationFailure", issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
  }
}

export class RateLimitError extends StrongroomError {
  constructor(
    message = "Too many requests",
    readonly retryAfterSeconds?: number,
  ) {
    super(429, "RateLimitExceeded", message);
  }
}

/** Raised by storage adapters when a unique constraint rejects a write. */
export class UniqueViolationError extends Error {
  constructor(
    readonly table: string,
    readonly columns: string[],
  ) {
    super(`unique constraint violated on ${table}(${columns.join(", ")})`);
    this.name = "UniqueViolationError";
  }
}
