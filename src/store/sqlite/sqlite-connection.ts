// The little of a SQLite connection the list needs: what node:sqlite, bun:sqlite and a Durable
// Object's SQL storage each give through their driver.

/** A value SQLite binds or returns that the list uses. */
export type SqlValue = string | number | null;

/**
 * The little of a SQLite connection the list needs, so that node:sqlite, bun:sqlite and a
 * Durable Object's `ctx.storage.sql` all fit behind it.
 */
export interface SqliteConnection {
  /** Runs one statement to completion with `params` bound to its `?`s, and returns its rows. */
  query(sql: string, ...params: SqlValue[]): Record<string, unknown>[];
  /** Runs one statement and yields its rows one at a time; leaving the loop early ends the statement. */
  iterate(sql: string, ...params: SqlValue[]): Iterable<Record<string, unknown>>;
  /** Runs `work` in one transaction: everything it wrote commits, or nothing does if it throws. */
  transaction<T>(work: () => T): T;
}
