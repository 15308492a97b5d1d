// A SQLite list put back from a copy starts a new history: a new instance, so that every ETag from
// before stops matching, and change numbers past any it gave, so that every cursor from before gets
// a reset. A copy made by `npm run backup` is marked, so that it does so by itself when opened.
import { historyStart, newInstance } from "../new-history.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import type { ChangeCounters } from "./sqlite-edits.ts";

/** Marks the list in `db` as a copy: the first server to open it as its list starts it on a new history. */
export function markCopy(db: SqliteConnection): void {
  db.query("UPDATE list SET is_copy = 1");
}

/** Whether the list in `db` is a copy no server has opened yet. */
export function isCopy(db: SqliteConnection): boolean {
  return Number(db.query("SELECT is_copy FROM list")[0]?.is_copy ?? 0) === 1;
}

/**
 * Starts the list in `db` on a new history and returns its new instance: each task is
 * made again by a change past any the list gave (in id order), the deletions are forgotten, and
 * with them every cursor from before. Its ids and Idempotency-Keys stay. Updates `counters`; runs
 * in the opening transaction, which must then write the list's byte count again (the tasks' rows
 * were touched).
 */
export function startNewHistory(db: SqliteConnection, counters: ChangeCounters): string {
  const instance = newInstance();
  const start = historyStart(counters.change, Date.now());
  db.query("UPDATE tasks SET created = ? + id, changed = ? + id", start, start);
  db.query("DELETE FROM deletions");
  // The changes a journal holds are of the old history: a reader of the new one starts after them.
  if (db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal'").length > 0) {
    db.query("DELETE FROM journal");
  }
  counters.change = start + counters.highestId;
  counters.forgotten = start;
  counters.tombstones = 0;
  db.query(
    "UPDATE list SET instance = ?, change_number = ?, forgotten = ?, is_copy = 0",
    instance,
    counters.change,
    counters.forgotten,
  );
  return instance;
}
