// A Durable Object's SQL storage as the SQLite connection the list's layout is written through,
// shared by the list objects and the directory object.
import type { SqliteConnection } from "../sqlite/sqlite-connection.ts";

/** The object's storage as a {@link SqliteConnection}: its SQL API is synchronous, and so are its transactions. */
export function storageConnection(storage: DurableObjectStorage): SqliteConnection {
  return {
    query: (sql, ...params) => storage.sql.exec(sql, ...params).toArray(),
    iterate: (sql, ...params) => storage.sql.exec(sql, ...params),
    transaction: (work) => storage.transactionSync(work),
  };
}
