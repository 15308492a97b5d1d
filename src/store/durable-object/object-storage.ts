// A Durable Object's SQL storage as the SQLite connection the list's layout is written through,
// shared by the list objects and the directory object, and what a list's object reads of it first.
import type { SqliteConnection } from "../sqlite/sqlite-connection.ts";

/** The object's storage as a {@link SqliteConnection}: its SQL API is synchronous, and so are its transactions. */
export function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}

/**
 * Whether the object's SQLite holds none of the list's tables, of this release (`schema_version`) or
 * of an older one (`list`, `lists`): its list was never created. The platform keeps tables of its own
 * there, which say nothing of the list.
 */
export function isEmpty(db: SqliteConnection): boolean {
  const ours = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN ('schema_version', 'list', 'lists')";
  return db.query(ours).length === 0;
}

/** The name of an object that does not know its own: the one list its storage holds. */
export function onlyList(db: SqliteConnection): string {
  const rows = isEmpty(db) ? [] : db.query("SELECT name FROM lists");
  if (rows.length !== 1) throw new Error("A list's Durable Object must be reached by its list's name");
  return String(rows[0]?.name);
}
