// The journal of a SQLite list: its latest changes, every one with the task as that change left it,
// written in each write's transaction, so that a copy of the list elsewhere (a Worker's, of its
// Durable Object's list) hears of every change, not only of each task's last.
import { JOURNAL_BYTES, JOURNAL_CHANGES } from "../../list/recent-changes.ts";
import { sqliteTaskJson } from "../../list/task-sql.ts";
import type { ChangedRow } from "../mirror.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";

/**
 * One row per change: the task as the change left it (no title nor completed for a deletion), and
 * the bytes of JSON of every change journaled so far through this one, so that trimming by bytes
 * reads only the rows it drops.
 */
const TABLE =
  "CREATE TABLE IF NOT EXISTS journal (change INTEGER PRIMARY KEY, id INTEGER NOT NULL, created INTEGER NOT NULL, title_json TEXT, completed INTEGER, total INTEGER NOT NULL)";
const LAST_TOTAL = "SELECT total FROM journal ORDER BY change DESC LIMIT 1";
const INSERT = "INSERT INTO journal (change, id, created, title_json, completed, total) VALUES (?, ?, ?, ?, ?, ?)";
const FIRST_KEPT = "SELECT change FROM journal WHERE total > ? ORDER BY change LIMIT 1";
/** Each change's task JSON, NULL for a deletion, and its length in bytes. */
const CHANGES_AFTER = `SELECT change, id, created, json, length(CAST(json AS BLOB)) AS bytes FROM (
  SELECT change, id, created, CASE WHEN title_json IS NULL THEN NULL ELSE ${sqliteTaskJson()} END AS json
  FROM journal WHERE change > ?
) ORDER BY change`;
const encoder = new TextEncoder();

/** A change as the journal records it: the task as it left it, or, for a deletion, its id alone. */
export interface JournaledChange {
  readonly change: number;
  readonly id: number;
  /** The change that created the task. */
  readonly created: number;
  /** The task's title as its JSON string literal and its completed; absent for a deletion. */
  readonly task?: { readonly titleJson: string; readonly completed: boolean };
}

/** Makes the journal table if the list has none (one made by an earlier version). */
export function openJournal(db: SqliteConnection): void {
  db.query(TABLE);
}

/**
 * Journals `change`, inside the transaction that makes it, and drops the oldest changes past the
 * last {@link JOURNAL_CHANGES}, and past those after which {@link JOURNAL_BYTES} bytes or more came.
 */
export function recordChange(db: SqliteConnection, { change, id, created, task }: JournaledChange): void {
  const bytes =
    task === undefined
      ? `{"id":${id}}`.length
      : encoder.encode(`{"id":${id},"title":${task.titleJson},"completed":${task.completed}}`).byteLength;
  const total = Number(db.query(LAST_TOTAL)[0]?.total ?? 0) + bytes;
  db.query(
    INSERT,
    change,
    id,
    created,
    task?.titleJson ?? null,
    task === undefined ? null : Number(task.completed),
    total,
  );
  const kept = Number(db.query(FIRST_KEPT, total - JOURNAL_BYTES)[0]?.change ?? change);
  db.query("DELETE FROM journal WHERE change < ?", Math.max(kept, change - JOURNAL_CHANGES + 1));
}

/** Every change after one, each with its task's JSON as that change left it (none for a deletion). */
export interface JournalRead {
  readonly rows: ChangedRow[];
  /** The last change read: the list's, or less when the read stopped at its byte limit. */
  readonly through: number;
}

/**
 * Every change after `after` up to `last` (the list's last), stopping after the one that brings
 * their JSON to `maxBytes` or more; undefined when the journal lacks one of them (trimmed, or
 * made by an earlier version).
 */
export function journalAfter(
  db: SqliteConnection,
  after: number,
  last: number,
  maxBytes: number,
): JournalRead | undefined {
  const rows: ChangedRow[] = [];
  let size = 0;
  let through = after;
  for (const row of db.iterate(CHANGES_AFTER, after)) {
    const change = Number(row.change);
    if (change !== through + 1) return undefined;
    through = change;
    const id = Number(row.id);
    if (typeof row.json !== "string") rows.push({ id, change, created: 0 });
    else {
      rows.push({ id, change, created: Number(row.created), json: row.json });
      size += Number(row.bytes) + 1;
    }
    if (size >= maxBytes) return { rows, through };
  }
  return through === last ? { rows, through } : undefined;
}
