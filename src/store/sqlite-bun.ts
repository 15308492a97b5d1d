import { Database } from "bun:sqlite";
import { type SqliteFileConnection, type SqlValue, WRITER_PRAGMAS } from "./sqlite.ts";

/** Opens the database file at `path` with bun:sqlite, creating it if needed. */
export function openBunSqlite(path: string): SqliteFileConnection {
  const db = new Database(path);
  try {
    for (const pragma of WRITER_PRAGMAS) db.run(pragma);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    // Bun caches the statement `query` prepares for each SQL text.
    query: (sql: string, ...params: SqlValue[]) => db.query<Record<string, unknown>, SqlValue[]>(sql).all(...params),
    transaction: <T>(work: () => T): T => db.transaction(work).immediate(),
    close: () => db.close(),
  };
}
