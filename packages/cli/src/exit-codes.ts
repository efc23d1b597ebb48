/**
 * The exit codes of every `strongroom` command (the README lists them). `run` exits with its
 * child's code instead (128 + signal number when the child was killed by a signal).
 */
export const EXIT = {
  ok: 0,
  /** The command failed: the server refused, a file could not be read, a check failed. */
  failed: 1,
  /** The command line was wrong: an unknown option, a missing argument. */
  usage: 2,
  /** No usable session: not logged in, or the token expired or was revoked (401). */
  unauthenticated: 3,
  /** What was asked for does not exist (404). */
  notFound: 4,
  /** `audit verify`: an entry does not fit its chain (edited, removed, inserted, reordered, or a tail cut off). */
  tampered: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An expected failure: its message is printed as is (no stack) and the process exits with `code`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = "CliError";
  }
}
