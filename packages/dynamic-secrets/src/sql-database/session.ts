/**
 * One connection to a SQL server with the root credentials, as the provider uses it: run a
 * script, ask whether the user may create users, close. `atomic` says whether a failed script
 * leaves nothing behind by itself (PostgreSQL's DDL is transactional; MySQL's commits as it goes).
 */
export interface SqlSession {
  readonly atomic: boolean;
  /** Runs the statements in order; with `atomic`, all or none take effect. */
  run(statements: readonly string[]): Promise<void>;
  /** Runs each statement, ignoring failures: the clean-up after a failed creation. */
  runEach(statements: readonly string[]): Promise<void>;
  /** Whether the connected user may create and drop users. */
  mayCreateUsers(): Promise<boolean>;
  close(): Promise<void>;
}
