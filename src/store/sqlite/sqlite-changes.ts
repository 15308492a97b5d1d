// What changed in a SQLite list after a change number, in change order: the reply a Durable
// Object gives a Worker's copy of the list, and what it sends its WebSocket subscribers.
import type { ListEvent } from "../../list/encoded-list.ts";
import { sqliteTaskJson } from "../../list/task-sql.ts";
import type { ChangedRow, ListChanges } from "../mirror.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import type { ChangeCounters } from "./sqlite-edits.ts";
import { journalAfter } from "./sqlite-journal.ts";

const encoder = new TextEncoder();
/** Each task changed after a change, with its JSON and the JSON's length in bytes. */
const TASKS_CHANGED_AFTER = `SELECT id, created, changed, json, length(CAST(json AS BLOB)) AS bytes FROM (
  SELECT id, created, changed, ${sqliteTaskJson()} AS json FROM tasks WHERE changed > ?
) ORDER BY changed`;
const DELETED_AFTER = "SELECT id, change FROM deletions WHERE change > ? AND change <= ? ORDER BY change";

/**
 * The changes after change `after` of the list in `db`, stopping after the task that brings their
 * JSON to `maxBytes` or more, or from nothing when `after` is older than the deletions the list
 * remembers or newer than its last change. With `journal`, every change when the list's journal
 * holds them all; else each task's last change.
 */
export function changesSince(
  db: SqliteConnection,
  instance: string,
  counters: ChangeCounters,
  after: number,
  maxBytes: number,
  journal = false,
): ListChanges {
  const from = after > counters.change || (after > 0 && after < counters.forgotten) ? 0 : after;
  const { change, highestId, forgotten } = counters;
  const reply = { instance, change, highestId, forgotten, after: from };
  const every = journal && from > 0 ? journalAfter(db, from, change, maxBytes) : undefined;
  if (every !== undefined) return { ...reply, through: every.through, journal: true, rows: every.rows };
  const tasks: ChangedRow[] = [];
  let size = 0;
  let through = change;
  for (const row of db.iterate(TASKS_CHANGED_AFTER, from)) {
    tasks.push({
      id: Number(row.id),
      change: Number(row.changed),
      created: Number(row.created),
      json: String(row.json),
    });
    size += Number(row.bytes) + (tasks.length > 1 ? 1 : 0);
    if (size >= maxBytes) {
      through = Number(row.changed);
      break;
    }
  }
  const deletions = db
    .query(DELETED_AFTER, from, through)
    .map((row): ChangedRow => ({ id: Number(row.id), change: Number(row.change), created: 0 }));
  const rows = [...tasks, ...deletions].sort((a, b) => a.change - b.change);
  return { ...reply, through, journal: false, rows };
}

/** The events a subscriber at change `changes.after` is sent for `changes`, in change order. */
export function changeEvents({ rows, after, journal }: ListChanges): ListEvent[] {
  const events: ListEvent[] = [];
  for (const { id, change, created, json } of rows) {
    if (json !== undefined) {
      // In a journal a task may come more than once: only the change that created it is its creation.
      const event = (journal ? created === change : created > after) ? "task" : "update";
      events.push({ change, event, id, json: encoder.encode(json) as Uint8Array<ArrayBuffer> });
    } else if (after > 0) {
      // A subscriber that holds nothing has nothing to delete.
      events.push({ change, event: "delete", id, json: encoder.encode(`{"id":${id}}`) as Uint8Array<ArrayBuffer> });
    }
  }
  return events;
}
