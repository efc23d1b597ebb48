/**
 * The source of the writer's worker thread (CommonJS, evaluated by `new Worker(…, { eval: true })`
 * so the built package needs no second entry file). It owns one connection to the database file
 * and runs the statements posted to it one after the other, as better-sqlite3 runs them: a
 * transaction's BEGIN, statements and COMMIT arrive in turn from the one caller holding it.
 *
 * Messages in: `{ id, sql, parameters }`, or `{ close: true }`. Out: `{ id, rows }` for a read,
 * `{ id, changes, lastInsertRowid }` for a write, `{ id, error: { message, code } }` on failure.
 */
export const WRITER_THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const CAPACITY = 512;
let db;
try {
  db = new Database(workerData.filename);
  // busy_timeout first: switching to WAL needs a lock another process may briefly hold.
  db.pragma("busy_timeout = 5000");
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: { message: String(error.message || error), code: error.code } });
  if (db) db.close();
  db = undefined;
}
const statements = new Map();
function prepare(sql) {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (statements.size >= CAPACITY) statements.delete(statements.keys().next().value);
    statements.set(sql, statement);
  }
  return statement;
}
parentPort.on("message", (message) => {
  if (message.close) {
    if (db) db.close();
    db = undefined;
    parentPort.close();
    return;
  }
  const { id, sql, parameters } = message;
  try {
    // SQLite ends the transaction itself on SQLITE_FULL or an I/O error: a ROLLBACK then would
    // fail ("no transaction is active") and hide the error that matters.
    if (sql === "rollback" && !db.inTransaction) return parentPort.postMessage({ id, changes: 0, lastInsertRowid: 0 });
    const statement = prepare(sql);
    if (statement.reader) return parentPort.postMessage({ id, rows: statement.all(parameters) });
    const { changes, lastInsertRowid } = statement.run(parameters);
    parentPort.postMessage({ id, changes, lastInsertRowid });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message || error), code: error && error.code } });
  }
});
`;
