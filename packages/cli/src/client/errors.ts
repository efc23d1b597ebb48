import { CliError, EXIT } from "../exit-codes.js";
import type { JsonAnswer } from "./http.js";

/**
 * Turns a refused request into the command's failure: the server's own message (its error body,
 * DESIGN.md §9), with the exit code a script can branch on (3 for 401, 4 for 404, 1 otherwise).
 */
export function refused(answer: JsonAnswer, doing: string): CliError {
  const body = (answer.body ?? {}) as { message?: unknown; error?: unknown };
  const message = typeof body.message === "string" ? body.message : Array.isArray(body.message) ? JSON.stringify(body.message) : `HTTP ${answer.status}`;
  if (answer.status === 401) {
    return new CliError(`${doing}: the server refused the token (${message}); run \`strongroom login\` again`, EXIT.unauthenticated);
  }
  if (answer.status === 404) return new CliError(`${doing}: ${message}`, EXIT.notFound);
  return new CliError(`${doing}: ${answer.status} ${typeof body.error === "string" ? body.error : ""} ${message}`.replace(/\s+/g, " ").trim());
}

/** The answer's body when the status is one of `expected`, else the failure. */
export function expectStatus(answer: JsonAnswer, doing: string, expected: number[] = [200]): any {
  if (!expected.includes(answer.status)) throw refused(answer, doing);
  return answer.body;
}
