// The SQLite driver of Node 24 and Deno (node:sqlite), behind the connection the list uses.
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { fileIdentity } from "./file-identity.ts";
import { type OpenSqliteFile, WRITER_PRAGMAS } from "./file-store.ts";
import type { SqlValue } from "./sqlite-connection.ts";

/** Opens the database file at `path` with node:sqlite (Node 24 and Deno), creating it if needed. */
export const openNodeSqlite: OpenSqliteFile = (path) => {
  const db = new DatabaseSync(path);
  try {
    for (const pragma of WRITER_PRAGMAS) db.exec(pragma);
  } catch (error) {
    db.close();
    throw error;
  }
  const statements = new Map<string, StatementSync>();
  const prepared = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  return {
    path,
    files: () => fileIdentity(path),
    query: (sql: string, ...params: SqlValue[]) => prepared(sql).all(...params),
    iterate: (sql: string, ...params: SqlValue[]) => prepared(sql).iterate(...params),
    close: () => db.close(),
    transaction<T>(work: () => T): T {
      db.exec("BEGIN IMMEDIATE");
      try {
        const result = work();
        db.exec("COMMIT");
        return result;
      } catch (error) {
        // SQLite rolls some failures back by itself; a second ROLLBACK would hide the first error.
        if (db.isTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
  };
};
