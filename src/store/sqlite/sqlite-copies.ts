// A SQLite list put back from a copy starts a new history: a new instance, so that every ETag from
// before stops matching, and change numbers past any it gave, so that every cursor from before gets
// a reset. A copy made by `npm run backup` is marked, so that it does so by itself when opened.
import { historyStart, newInstance } from "../../engine/new-history.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";

/** Marks every list in `db` as a copy: the first server to open it starts each on a new history. */
export function markCopy(db: SqliteConnection): void {
  db.query("UPDATE lists SET is_copy = 1");
}

/**
 * Starts list `name` of `db` on a new history: each task is made again by a change past any the
 * list gave (in id order), the deletions are forgotten, and with them every cursor from before. Its
 * ids and Idempotency-Keys stay. Runs in the opening transaction.
 */
export function startNewHistory(db: SqliteConnection, name: string): void {
  const row = db.query("SELECT change_number, highest_id FROM lists WHERE name = ?", name)[0] ?? {};
  const start = historyStart(Number(row.change_number ?? 0), Date.now());
  db.query("UPDATE tasks SET created = ? + id, changed = ? + id WHERE list = ?", start, start, name);
  db.query("DELETE FROM deletions WHERE list = ?", name);
  db.query(
    "UPDATE lists SET instance = ?, change_number = ?, forgotten = ?, is_copy = 0 WHERE name = ?",
    newInstance(),
    start + Number(row.highest_id ?? 0),
    start,
    name,
  );
}
