// What changed in a SQLite list after a change number, in change order: the reply a Durable
// Object gives a Worker's copy of the list, and what it sends its WebSocket subscribers.
import type { ListEvent } from "../../list/encoded-list.ts";
import { taskJson } from "../../list/task.ts";
import type { ListChanges } from "../mirror.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import type { ChangeCounters } from "./sqlite-edits.ts";

const encoder = new TextEncoder();
const TASKS_CHANGED_AFTER =
  "SELECT id, title_json, completed, created, changed FROM tasks WHERE changed > ? ORDER BY changed";
const DELETED_AFTER = "SELECT id, change FROM deletions WHERE change > ? AND change <= ? ORDER BY change";

/**
 * The changes after change `after` of the list in `db`, stopping after the task that brings their
 * JSON to `maxBytes` or more, or from nothing when `after` is older than the deletions the list
 * remembers or newer than its last change.
 */
export function changesSince(
  db: SqliteConnection,
  instance: string,
  counters: ChangeCounters,
  after: number,
  maxBytes: number,
): ListChanges {
  const from = after > counters.change || (after > 0 && after < counters.forgotten) ? 0 : after;
  const parts: Uint8Array[] = [];
  const ids: number[] = [];
  const created: number[] = [];
  const changed: number[] = [];
  let size = 0;
  let through = counters.change;
  for (const row of db.iterate(TASKS_CHANGED_AFTER, from)) {
    const id = Number(row.id);
    const title = JSON.parse(String(row.title_json)) as string;
    const json = encoder.encode(taskJson({ id, title, completed: row.completed === 1 }));
    size += json.byteLength + (parts.length > 0 ? 1 : 0);
    parts.push(json);
    ids.push(id);
    created.push(Number(row.created));
    changed.push(Number(row.changed));
    if (size >= maxBytes) {
      through = Number(row.changed);
      break;
    }
  }
  const deletions = db.query(DELETED_AFTER, from, through);
  const json = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    if (offset > 0) json[offset++] = 0x2c;
    json.set(part, offset);
    offset += part.byteLength;
  }
  return {
    instance,
    change: counters.change,
    highestId: counters.highestId,
    forgotten: counters.forgotten,
    after: from,
    through,
    journal: false,
    tasks: { json, lengths: parts.map((part) => part.byteLength), ids, created, changed },
    deleted: { ids: deletions.map((row) => Number(row.id)), changes: deletions.map((row) => Number(row.change)) },
  };
}

/** The events a subscriber at change `changes.after` is sent for `changes`, in change order. */
export function changeEvents(changes: ListChanges): ListEvent[] {
  const { tasks, deleted, after } = changes;
  const events: ListEvent[] = [];
  let offset = 0;
  for (const [at, length] of tasks.lengths.entries()) {
    const created = tasks.created[at] ?? 0;
    events.push({
      change: tasks.changed[at] ?? 0,
      event: created > after ? "task" : "update",
      id: tasks.ids[at] ?? 0,
      json: tasks.json.subarray(offset, offset + length),
    });
    offset += length + 1;
  }
  // A subscriber that holds nothing has nothing to delete.
  if (after > 0) {
    for (const [at, id] of deleted.ids.entries()) {
      const json = encoder.encode(`{"id":${id}}`) as Uint8Array<ArrayBuffer>;
      events.push({ change: deleted.changes[at] ?? 0, event: "delete", id, json });
    }
  }
  return events.sort((a, b) => a.change - b.change);
}
