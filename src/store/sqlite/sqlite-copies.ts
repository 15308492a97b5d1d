// A SQLite list put back from a copy starts a new history: a new instance, so that every ETag from
// before stops matching, and change numbers past any it gave, so that every cursor from before gets
// a reset. A copy made by `npm run backup` is marked, so that it does so by itself when opened.
import { historyStart, newInstance } from "../new-history.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";

/** Marks the list in `db` as a copy: the first server to open it as its list starts it on a new history. */
export function markCopy(db: SqliteConnection): void {
  db.query("UPDATE list SET is_copy = 1");
}

/** Whether the list in `db` is a copy no server has opened yet. */
export function isCopy(db: SqliteConnection): boolean {
  return Number(db.query("SELECT is_copy FROM list")[0]?.is_copy ?? 0) === 1;
}

/**
 * Starts the list in `db` on a new history and returns its new instance: each task is made again
 * by a change past any the list gave (in id order), the deletions are forgotten, and with them every
 * cursor from before. Its ids and Idempotency-Keys stay. Runs in the opening transaction.
 */
export function startNewHistory(db: SqliteConnection): string {
  const instance = newInstance();
  const row = db.query("SELECT change_number, highest_id FROM list")[0] ?? {};
  const highestId = Number(row.highest_id ?? 0);
  const start = historyStart(Number(row.change_number ?? 0), Date.now());
  db.query("UPDATE tasks SET created = ? + id, changed = ? + id", start, start);
  db.query("DELETE FROM deletions");
  db.query(
    "UPDATE list SET instance = ?, change_number = ?, forgotten = ?, is_copy = 0",
    instance,
    start + highestId,
    start,
  );
  return instance;
}
