// The SQLite driver of Bun (bun:sqlite), behind the connection the list uses.
import { Database } from "bun:sqlite";
import { fileIdentity } from "./file-identity.ts";
import { type OpenSqliteFile, WRITER_PRAGMAS } from "./file-store.ts";
import type { SqlValue } from "./sqlite-connection.ts";

/** Opens the database file at `path` with bun:sqlite, creating it if needed. */
export const openBunSqlite: OpenSqliteFile = (path) => {
  const db = new Database(path);
  try {
    for (const pragma of WRITER_PRAGMAS) db.run(pragma);
  } catch (error) {
    db.close();
    throw error;
  }
  // Bun caches the statement `query` prepares for each SQL text.
  const statement = (sql: string) => db.query<Record<string, unknown>, SqlValue[]>(sql);
  return {
    path,
    files: () => fileIdentity(path),
    query: (sql: string, ...params: SqlValue[]) => statement(sql).all(...params),
    iterate: (sql: string, ...params: SqlValue[]) => statement(sql).iterate(...params),
    transaction: <T>(work: () => T): T => db.transaction(work).immediate(),
    close: () => db.close(),
  };
};
