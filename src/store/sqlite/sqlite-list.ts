// The list as tables of a SQLite database: the one format the file store and the Durable Object
// share, with its schema, its upgrade of older lists, and each write in one transaction.
import type { ListLimits } from "../../config.ts";
import type { StoredList } from "../../list/encoded-list.ts";
import { type Limit, type ListUsage, limitReached } from "../../list/limits.ts";
import { INITIAL_TASKS, type NewTask, type Task, taskJson } from "../../list/task.ts";
import { sqliteTaskJson } from "../../list/task-sql.ts";
import type { ListChanges } from "../mirror.ts";
import { newInstance } from "../new-history.ts";
import type { IdempotencyKey, IfMatch, RemoveResult, TaskPatch, UpdateResult } from "../store.ts";
import { changesSince } from "./sqlite-changes.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { isCopy, startNewHistory } from "./sqlite-copies.ts";
import {
  type ChangeCounters,
  removeRow,
  type SqliteEdit,
  storedList,
  updateRow,
  upgradeForChanges,
} from "./sqlite-edits.ts";
import { openJournal, recordChange } from "./sqlite-journal.ts";

/** What a successful {@link SqliteList.append} added: the task, and its JSON as text and as UTF-8. */
export interface Appended {
  readonly task: Task;
  readonly text: string;
  readonly json: Uint8Array<ArrayBuffer>;
}

/** What {@link SqliteList.append} did: added a task, found its key's task, refused the key, or found the list full. */
export type SqliteAppend =
  | Appended
  | { readonly replayed: Task }
  | { readonly keyReused: true }
  | { readonly full: Limit };

const SCHEMA = [
  // A title is kept as its JSON string literal: SQLite text cannot hold the lone surrogates a JSON
  // title may carry, and Deno's node:sqlite cuts text it reads back at the first NUL.
  "CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL)",
  // One row: the list's random instance id, which sets its ETags apart from every other list's,
  // its task count, kept by triggers, and the bytes of its JSON, so that an append checks both
  // limits without reading the tasks. Lists made before json_bytes existed gain it when opened.
  "CREATE TABLE IF NOT EXISTS list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL, json_bytes INTEGER)",
  "CREATE TRIGGER IF NOT EXISTS task_added AFTER INSERT ON tasks BEGIN UPDATE list SET task_count = task_count + 1; END",
  "CREATE TRIGGER IF NOT EXISTS task_removed AFTER DELETE ON tasks BEGIN UPDATE list SET task_count = task_count - 1; END",
  // Nothing in the service edits or removes a task; a change made by hand makes the byte count
  // unknown, and the next open counts it again.
  "CREATE TRIGGER IF NOT EXISTS bytes_unknown_after_delete AFTER DELETE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END",
  "CREATE TRIGGER IF NOT EXISTS bytes_unknown_after_update AFTER UPDATE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END",
  // Idempotency-Keys: each with the task it added and a hash of what it asked for, oldest first by seq.
  "CREATE TABLE IF NOT EXISTS idempotency_keys (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, task_id INTEGER NOT NULL, UNIQUE (scope, key))",
  // A scope's keys in seq order (an index holds the rowid, which seq is), to forget its oldest.
  "CREATE INDEX IF NOT EXISTS idempotency_keys_by_scope ON idempotency_keys (scope)",
];
const encoder = new TextEncoder();
const ALL_TASKS = "SELECT id, title_json, completed FROM tasks ORDER BY id";
const TASK = "SELECT id, title_json, completed FROM tasks WHERE id = ?";
const STORED_TASKS = "SELECT id, title_json, completed, created, changed FROM tasks ORDER BY id";
const OLDEST_KEYS =
  "DELETE FROM idempotency_keys WHERE seq IN (SELECT seq FROM idempotency_keys WHERE scope = ? ORDER BY seq LIMIT ?)";
const KNOWN_KEY = "SELECT fingerprint, task_id, task_json FROM idempotency_keys WHERE scope = ? AND key = ?";
/** Bytes of the JSON of the tasks changed after a change number, commas between them included, counted in SQL as the list encodes them. */
const BYTES_CHANGED_AFTER = `SELECT COALESCE(SUM(LENGTH(CAST(${sqliteTaskJson()} AS BLOB)) + 1) - 1, 0) AS bytes FROM tasks WHERE changed > ?`;

/**
 * The list as tables in a SQLite database, of which this object must be the only writer: it keeps
 * the list's count, bytes and last id in memory and checks each append against them.
 */
export class SqliteList {
  readonly #db: SqliteConnection;
  /** Random per list, kept in the database: ETags stay valid across restarts and differ between lists. */
  readonly instance: string;
  /** Whether opening it started a new history: it was put back from a copy. */
  readonly newHistory: boolean;
  #tasks: number;
  #bytes: number;
  #lastId: number;
  /** How many keys each scope holds. */
  readonly #keys = new Map<string, number>();
  readonly #counters: ChangeCounters;
  readonly #journal: boolean;

  /**
   * Creates the schema and the initial tasks if the database holds no list yet, and counts the
   * bytes of a list that has no count (made before json_bytes existed, or changed by hand).
   * A list put back from a copy (`restored`, or a copy `npm run backup` made) starts a new history
   * first (see sqlite-copies.ts). With `journal`, every write also journals its change, for
   * {@link changesSince}: for a list read through copies elsewhere. Throws if the database cannot be
   * read or written.
   */
  constructor(db: SqliteConnection, options: { readonly restored?: boolean; readonly journal?: boolean } = {}) {
    this.#db = db;
    this.#journal = options.journal === true;
    const state = db.transaction(() => {
      const list = openList(db);
      const counters = upgradeForChanges(db);
      if (this.#journal) openJournal(db);
      const newHistory = options.restored === true || isCopy(db);
      const instance = newHistory ? startNewHistory(db, counters) : list.instance;
      // Bringing the tasks' change numbers up to date touched rows, which forgets the byte count.
      db.query("UPDATE list SET json_bytes = ?", list.bytes);
      return { ...list, instance, newHistory, counters };
    });
    this.instance = state.instance;
    this.newHistory = state.newHistory;
    this.#tasks = state.tasks;
    this.#bytes = state.bytes;
    this.#counters = state.counters;
    this.#lastId = Number(db.query("SELECT COALESCE(MAX(id), 0) AS id FROM tasks")[0]?.id ?? 0);
    for (const row of db.query("SELECT scope, COUNT(*) AS keys FROM idempotency_keys GROUP BY scope")) {
      this.#keys.set(String(row.scope), Number(row.keys));
    }
  }

  get usage(): ListUsage {
    return { tasks: this.#tasks, bytes: this.#bytes };
  }

  /** The id of the last task, or 0 when the list is empty. */
  get lastId(): number {
    return this.#lastId;
  }

  /** The number of the list's last change. */
  get change(): number {
    return this.#counters.change;
  }

  /** The list as the tables hold it, for a copy in memory: its tasks with their change numbers, and its deletions. */
  stored(): StoredList {
    return storedList(this.#db, this.#counters, STORED_TASKS, toTask);
  }

  /**
   * What changed after change `after` of list `instance`, up to about `maxBytes` (see
   * `ChangesSince`): every change when `every` and the journal holds them all, else each task's last.
   */
  changesSince(instance: string | undefined, after: number, maxBytes: number, every = true): ListChanges {
    const from = instance === this.instance ? after : 0;
    return changesSince(this.#db, this.instance, this.#counters, from, maxBytes, every && this.#journal);
  }

  /** Applies `patch` to task `id` in one transaction with its checks (see `TaskStore.update`). */
  update(id: number, patch: TaskPatch, limits: ListLimits, ifMatch: IfMatch): SqliteEdit<UpdateResult> {
    return this.#applied(updateRow(this.#editContext(), id, patch, limits, ifMatch));
  }

  /** Deletes task `id` in one transaction with its checks (see `TaskStore.remove`). */
  remove(id: number, ifMatch: IfMatch): SqliteEdit<RemoveResult> {
    return this.#applied(removeRow(this.#editContext(), id, ifMatch, this.#lastId));
  }

  #editContext() {
    return {
      db: this.#db,
      instance: this.instance,
      usage: this.usage,
      counters: this.#counters,
      journal: this.#journal,
    };
  }

  #applied<R extends { usage: ListUsage }>(edit: SqliteEdit<R>): SqliteEdit<R> {
    ({ tasks: this.#tasks, bytes: this.#bytes } = edit.result.usage);
    this.#lastId = edit.lastId ?? this.#lastId;
    return edit;
  }

  /**
   * Appends a task with the next id, in one transaction, unless it would break one of `limits`.
   * With `key`: a key the list remembers returns the task it added (or is refused, for
   * another task) before any limit; a new one is remembered in the transaction that adds the task,
   * which forgets the oldest keys of its scope past `limits.maxKeys`.
   */
  append(task: NewTask, limits: ListLimits, key?: IdempotencyKey): SqliteAppend {
    // A key whose task was changed away by hand is new again: its row goes with the append.
    let stale = false;
    if (key !== undefined) {
      const known = this.#db.query(KNOWN_KEY, key.scope, key.key)[0];
      if (known !== undefined) {
        if (known.fingerprint !== key.fingerprint) return { keyReused: true };
        // The task as first returned, even when it was edited or deleted since.
        if (typeof known.task_json === "string") return { replayed: JSON.parse(known.task_json) as Task };
        const kept = this.#db.query(TASK, Number(known.task_id))[0];
        if (kept !== undefined) return { replayed: toTask(kept) };
        stale = true;
      }
    }
    const created: Task = { id: this.#counters.highestId + 1, title: task.title, completed: task.completed };
    const text = taskJson(created);
    const json = encoder.encode(text) as Uint8Array<ArrayBuffer>;
    const added = json.byteLength + (this.#tasks > 0 ? 1 : 0);
    const full = limitReached(this.usage, added, limits);
    if (full !== undefined) return { full };
    const held = key === undefined ? 0 : (this.#keys.get(key.scope) ?? 0) - (stale ? 1 : 0);
    const forget = key === undefined ? 0 : Math.max(held + 1 - limits.maxKeys, 0);
    const change = this.#counters.change + 1;
    this.#db.transaction(() => {
      this.#db.query(
        "INSERT INTO tasks (id, title_json, completed, created, changed) VALUES (?, ?, ?, ?, ?)",
        created.id,
        JSON.stringify(created.title),
        Number(created.completed),
        change,
        change,
      );
      this.#db.query(
        "UPDATE list SET json_bytes = json_bytes + ?, change_number = ?, highest_id = ?",
        added,
        change,
        created.id,
      );
      if (this.#journal) {
        const journaled = { titleJson: JSON.stringify(created.title), completed: created.completed };
        recordChange(this.#db, { change, id: created.id, created: change, task: journaled });
      }
      if (key === undefined) return;
      if (stale) this.#db.query("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?", key.scope, key.key);
      this.#db.query(
        "INSERT INTO idempotency_keys (scope, key, fingerprint, task_id, task_json) VALUES (?, ?, ?, ?, ?)",
        key.scope,
        key.key,
        key.fingerprint,
        created.id,
        text,
      );
      if (forget > 0) this.#db.query(OLDEST_KEYS, key.scope, forget);
    });
    this.#tasks += 1;
    this.#bytes += added;
    this.#lastId = created.id;
    this.#counters.change = change;
    this.#counters.highestId = created.id;
    if (key !== undefined) this.#keys.set(key.scope, held + 1 - forget);
    return { task: created, text, json };
  }

  /** Bytes of the JSON of the tasks whose last change is after change `change`, the commas between them included. */
  bytesChangedAfter(change: number): number {
    return Number(this.#db.query(BYTES_CHANGED_AFTER, change)[0]?.bytes ?? 0);
  }
}

/** Creates the schema and the list if the database holds none, and reads the list's row. Runs in the opening transaction. */
function openList(db: SqliteConnection): { instance: string; tasks: number; bytes: number } {
  for (const statement of SCHEMA) db.query(statement);
  let row = db.query("SELECT * FROM list")[0];
  if (row !== undefined && !("json_bytes" in row)) {
    db.query("ALTER TABLE list ADD COLUMN json_bytes INTEGER");
    row = db.query("SELECT * FROM list")[0];
  }
  if (row === undefined) return createList(db);
  const instance = row.instance;
  const tasks = row.task_count;
  if (typeof instance !== "string" || typeof tasks !== "number") {
    throw new Error(`The list table holds a row that is not a list: ${JSON.stringify(row)}`);
  }
  if (typeof row.json_bytes === "number") return { instance, tasks, bytes: row.json_bytes };
  const bytes = countBytes(db);
  db.query("UPDATE list SET json_bytes = ?", bytes);
  return { instance, tasks, bytes };
}

function createList(db: SqliteConnection): { instance: string; tasks: number; bytes: number } {
  const instance = newInstance();
  db.query("INSERT INTO list (only, instance, task_count, json_bytes) VALUES (1, ?, 0, 0)", instance);
  for (const task of INITIAL_TASKS) {
    db.query(
      "INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)",
      task.id,
      JSON.stringify(task.title),
      Number(task.completed),
    );
  }
  const bytes = countBytes(db);
  db.query("UPDATE list SET json_bytes = ?", bytes);
  return { instance, tasks: INITIAL_TASKS.length, bytes };
}

/** The bytes of the list's JSON, counted task by task. */
function countBytes(db: SqliteConnection): number {
  let bytes = 2;
  let first = true;
  for (const row of db.iterate(ALL_TASKS)) {
    bytes += encoder.encode(taskJson(toTask(row))).byteLength + (first ? 0 : 1);
    first = false;
  }
  return bytes;
}

function toTask(row: Record<string, unknown>): Task {
  const { id, title_json, completed } = row;
  const title: unknown = typeof title_json === "string" ? JSON.parse(title_json) : undefined;
  if (typeof id !== "number" || typeof title !== "string" || (completed !== 0 && completed !== 1)) {
    throw new Error(`The tasks table holds a row that is not a task: ${JSON.stringify(row)}`);
  }
  return { id, title, completed: completed === 1 };
}
