// What a SQLite list keeps for tasks that change: change numbers, the highest id given, the
// deletions remembered, and each edit or deletion with its checks in one transaction.
import type { ListLimits } from "../../config.ts";
import { MAX_TOMBSTONES } from "../../list/change-log.ts";
import { encodeTask, type StoredList } from "../../list/encoded-list.ts";
import type { ListUsage } from "../../list/limits.ts";
import { taskVersion } from "../../list/list-version.ts";
import { type Task, taskJson } from "../../list/task.ts";
import type { IfMatch, RemoveResult, TaskPatch, UpdateResult } from "../store.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { recordChange } from "./sqlite-journal.ts";

const encoder = new TextEncoder();

/**
 * Statements that bring a list made before tasks could change up to date; each may run on every
 * open. A column left NULL by an older list means: the task's id (no task had changed then).
 */
const UPGRADES: readonly [table: string, column: string, sql: string][] = [
  ["tasks", "created", "ALTER TABLE tasks ADD COLUMN created INTEGER"],
  ["tasks", "changed", "ALTER TABLE tasks ADD COLUMN changed INTEGER"],
  ["list", "change_number", "ALTER TABLE list ADD COLUMN change_number INTEGER"],
  ["list", "highest_id", "ALTER TABLE list ADD COLUMN highest_id INTEGER"],
  ["list", "forgotten", "ALTER TABLE list ADD COLUMN forgotten INTEGER NOT NULL DEFAULT 0"],
  ["idempotency_keys", "task_json", "ALTER TABLE idempotency_keys ADD COLUMN task_json TEXT"],
  // 1 in a copy made by `npm run backup` (sqlite-copies.ts).
  ["list", "is_copy", "ALTER TABLE list ADD COLUMN is_copy INTEGER NOT NULL DEFAULT 0"],
];
/** The deletions remembered, oldest first: a subscriber resuming from before one is told of it. */
const DELETIONS = "CREATE TABLE IF NOT EXISTS deletions (change INTEGER PRIMARY KEY, id INTEGER NOT NULL)";

/** The list's counters for changes, as its row keeps them. */
export interface ChangeCounters {
  change: number;
  highestId: number;
  forgotten: number;
  tombstones: number;
}

/** Adds what a list made before tasks could change lacks, and reads its counters. Runs in the opening transaction. */
export function upgradeForChanges(db: SqliteConnection): ChangeCounters {
  for (const [table, column, sql] of UPGRADES) {
    const columns = db.query(`SELECT name FROM pragma_table_info('${table}')`).map((row) => row.name);
    if (!columns.includes(column)) db.query(sql);
  }
  db.query(DELETIONS);
  // Tasks of a list made before tasks could change were created, and last changed, by their id.
  db.query("UPDATE tasks SET created = id, changed = id WHERE changed IS NULL");
  db.query("CREATE INDEX IF NOT EXISTS tasks_by_change ON tasks (changed)");
  const row = db.query(
    "SELECT change_number, highest_id, forgotten, (SELECT COALESCE(MAX(id), 0) FROM tasks) AS max_id, (SELECT COALESCE(MAX(changed), 0) FROM tasks) AS max_changed, (SELECT COUNT(*) FROM deletions) AS tombstones FROM list",
  )[0];
  const maxId = Number(row?.max_id ?? 0);
  // Tasks added by hand took their id as their change number, which may pass the list's.
  const counters = {
    change: Math.max(row?.change_number == null ? maxId : Number(row.change_number), Number(row?.max_changed ?? 0)),
    highestId: Math.max(row?.highest_id == null ? maxId : Number(row.highest_id), maxId),
    forgotten: Number(row?.forgotten ?? 0),
    tombstones: Number(row?.tombstones ?? 0),
  };
  db.query("UPDATE list SET change_number = ?, highest_id = ?", counters.change, counters.highestId);
  return counters;
}

/** The list in `db` for a copy in memory: its tasks (read by `tasks`, made by `toTask`) with their change numbers, and its deletions. */
export function storedList(
  db: SqliteConnection,
  counters: ChangeCounters,
  tasks: string,
  toTask: (row: Record<string, unknown>) => Task,
): StoredList {
  return {
    tasks: (function* () {
      for (const row of db.iterate(tasks)) {
        const task = toTask(row);
        yield { id: task.id, json: encodeTask(task), created: Number(row.created), changed: Number(row.changed) };
      }
    })(),
    deletions: db.query("SELECT id, change FROM deletions ORDER BY change").map((row) => ({
      id: Number(row.id),
      change: Number(row.change),
    })),
    change: counters.change,
    highestId: counters.highestId,
    forgotten: counters.forgotten,
  };
}

/** The list as an edit or a deletion finds it. */
export interface EditContext {
  readonly db: SqliteConnection;
  readonly instance: string;
  readonly usage: ListUsage;
  readonly counters: ChangeCounters;
  /** Whether each change is journaled too. */
  readonly journal: boolean;
}

/** What an edit or a deletion did to the list: its result and, when it changed the list, its new byte count. */
export interface SqliteEdit<R> {
  readonly result: R;
  /** Bytes of the list's JSON after the change, when there was one. */
  readonly bytes?: number;
  /** The task's new JSON, for an edit that changed it. */
  readonly json?: Uint8Array<ArrayBuffer>;
  /** The id of the list's last task, after a deletion. */
  readonly lastId?: number;
}

const TASK = "SELECT id, title_json, completed, created, changed FROM tasks WHERE id = ?";

/** Task `id` as it is and its version, or why there is none, or the If-Match it fails. */
function current(
  { db, instance, usage, counters }: EditContext,
  id: number,
  ifMatch: IfMatch,
):
  | { task: Task; version: string; text: string; created: number }
  | { outcome: "not-found" | "gone" | "precondition-failed"; usage: ListUsage } {
  const row = db.query(TASK, id)[0];
  if (row === undefined) return { outcome: id >= 1 && id <= counters.highestId ? "gone" : "not-found", usage };
  const version = taskVersion(instance, id, Number(row.changed));
  if (ifMatch !== undefined && !ifMatch.includes(version)) return { outcome: "precondition-failed", usage };
  const task: Task = { id, title: JSON.parse(String(row.title_json)) as string, completed: row.completed === 1 };
  return { task, version, text: taskJson(task), created: Number(row.created) };
}

/** Applies `patch` to task `id` in one transaction, with its checks: the task, If-Match, then MAX_LIST_BYTES. */
export function updateRow(
  context: EditContext,
  id: number,
  patch: TaskPatch,
  limits: ListLimits,
  ifMatch: IfMatch,
): SqliteEdit<UpdateResult> {
  const { db, instance, usage, counters } = context;
  const found = current(context, id, ifMatch);
  if ("outcome" in found) return { result: found };
  const old = found.task;
  const task: Task = { id, title: patch.title ?? old.title, completed: patch.completed ?? old.completed };
  if (task.title === old.title && task.completed === old.completed) {
    return { result: { outcome: "unchanged", task, json: found.text, version: found.version, usage } };
  }
  const text = taskJson(task);
  const json = encoder.encode(text) as Uint8Array<ArrayBuffer>;
  const grows = json.byteLength - encoder.encode(found.text).byteLength;
  if (grows > 0 && usage.bytes + grows > limits.maxBytes) {
    return { result: { outcome: "full", limit: "bytes", usage } };
  }
  const change = counters.change + 1;
  const bytes = usage.bytes + grows;
  db.transaction(() => {
    db.query(
      "UPDATE tasks SET title_json = ?, completed = ?, changed = ? WHERE id = ?",
      JSON.stringify(task.title),
      Number(task.completed),
      change,
      id,
    );
    // The row's trigger forgets the byte count, as it does for a change made by hand: this one is known.
    db.query("UPDATE list SET json_bytes = ?, change_number = ?", bytes, change);
    if (context.journal) {
      const journaled = { titleJson: JSON.stringify(task.title), completed: task.completed };
      recordChange(db, { change, id, created: found.created, task: journaled });
    }
  });
  counters.change = change;
  const version = taskVersion(instance, id, change);
  return {
    result: { outcome: "updated", task, json: text, version, usage: { tasks: usage.tasks, bytes } },
    bytes,
    json,
  };
}

/** Deletes task `id` in one transaction, with its checks: the task, then If-Match. Remembers the deletion. */
export function removeRow(
  context: EditContext,
  id: number,
  ifMatch: IfMatch,
  lastId: number,
): SqliteEdit<RemoveResult> {
  const { db, usage, counters } = context;
  const found = current(context, id, ifMatch);
  if ("outcome" in found) return { result: found };
  const change = counters.change + 1;
  const taskBytes = encoder.encode(found.text).byteLength;
  const bytes = usage.bytes - taskBytes - (usage.tasks > 1 ? 1 : 0);
  const forget = Math.max(counters.tombstones + 1 - MAX_TOMBSTONES, 0);
  let forgotten = counters.forgotten;
  db.transaction(() => {
    db.query("DELETE FROM tasks WHERE id = ?", id);
    db.query("INSERT INTO deletions (change, id) VALUES (?, ?)", change, id);
    if (forget > 0) {
      forgotten = Number(
        db.query("SELECT MAX(change) AS change FROM (SELECT change FROM deletions ORDER BY change LIMIT ?)", forget)[0]
          ?.change ?? forgotten,
      );
      db.query("DELETE FROM deletions WHERE change <= ?", forgotten);
    }
    db.query("UPDATE list SET json_bytes = ?, change_number = ?, forgotten = ?", bytes, change, forgotten);
    if (context.journal) recordChange(db, { change, id, created: found.created });
  });
  counters.change = change;
  counters.forgotten = forgotten;
  counters.tombstones += 1 - forget;
  const last = id === lastId ? Number(db.query("SELECT COALESCE(MAX(id), 0) AS id FROM tasks")[0]?.id ?? 0) : lastId;
  return { result: { outcome: "deleted", usage: { tasks: usage.tasks - 1, bytes } }, bytes, lastId: last };
}
