import { Database } from "bun:sqlite";
import { type SqliteFileConnection, WRITER_PRAGMAS } from "./sqlite.ts";
import type { SqlValue } from "./sqlite-list.ts";

/** Opens the database file at `path` with bun:sqlite, creating it if needed. */
export function openBunSqlite(path: string): SqliteFileConnection {
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
    query: (sql: string, ...params: SqlValue[]) => statement(sql).all(...params),
    iterate: (sql: string, ...params: SqlValue[]) => statement(sql).iterate(...params),
    transaction: <T>(work: () => T): T => db.transaction(work).immediate(),
    close: () => db.close(),
  };
}
