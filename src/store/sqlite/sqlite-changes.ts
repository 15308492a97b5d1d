// What changed in a SQLite list after a change number, in change order: the reply a Durable
// Object gives a Worker's copy of the list, and what it sends its WebSocket subscribers.
import type { ListEvent } from "../../list/encoded-list.ts";
import { taskJson } from "../../list/task.ts";
import type { ListChanges } from "../mirror.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import type { ChangeCounters } from "./sqlite-edits.ts";
import { type JournalRead, journalAfter } from "./sqlite-journal.ts";

const encoder = new TextEncoder();
const TASKS_CHANGED_AFTER =
  "SELECT id, title_json, completed, created, changed FROM tasks WHERE changed > ? ORDER BY changed";
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
  const every = journal && from > 0 ? journalAfter(db, from, counters.change, maxBytes) : undefined;
  if (every !== undefined) return journalReply(instance, counters, from, every);
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
  const json = joined(parts);
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

/** A reply made of every change `read` holds. */
function journalReply(instance: string, counters: ChangeCounters, after: number, read: JournalRead): ListChanges {
  const tasks = read.changes.filter((change) => change.json !== undefined);
  const deleted = read.changes.filter((change) => change.json === undefined);
  return {
    instance,
    change: counters.change,
    highestId: counters.highestId,
    forgotten: counters.forgotten,
    after,
    through: read.through,
    journal: true,
    tasks: {
      json: joined(tasks.map((task) => task.json ?? new Uint8Array())),
      lengths: tasks.map((task) => task.json?.byteLength ?? 0),
      ids: tasks.map((task) => task.id),
      created: tasks.map((task) => task.created),
      changed: tasks.map((task) => task.change),
    },
    deleted: { ids: deleted.map((gone) => gone.id), changes: deleted.map((gone) => gone.change) },
  };
}

/** JSON parts joined by commas. */
function joined(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const json = new Uint8Array(Math.max(parts.reduce((size, part) => size + part.byteLength + 1, 0) - 1, 0));
  let offset = 0;
  for (const [at, part] of parts.entries()) {
    if (at > 0) json[offset++] = 0x2c;
    json.set(part, offset);
    offset += part.byteLength;
  }
  return json;
}

/** The events a subscriber at change `changes.after` is sent for `changes`, in change order. */
export function changeEvents(changes: ListChanges): ListEvent[] {
  const { tasks, deleted, after } = changes;
  const events: ListEvent[] = [];
  let offset = 0;
  for (const [at, length] of tasks.lengths.entries()) {
    const created = tasks.created[at] ?? 0;
    const change = tasks.changed[at] ?? 0;
    events.push({
      change,
      // In a journal a task may come more than once: only the change that created it is its creation.
      event: (changes.journal ? created === change : created > after) ? "task" : "update",
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
