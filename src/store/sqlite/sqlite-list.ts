// The list as tables of a SQLite database, the one layout the file store and the Durable Object
// share: opened (and migrated) once, read whole into memory, and written a change at a time.
import { EncodedList, type StoredTask } from "../../list/encoded-list.ts";
import { HeldList, type ListChange } from "../../list/held-list.ts";
import type { RememberedKey } from "../../list/remembered-keys.ts";
import { INITIAL_TASKS } from "../../list/task.ts";
import { newInstance } from "../new-history.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { isCopy, startNewHistory } from "./sqlite-copies.ts";
import { migrate } from "./sqlite-migrations.ts";

const encoder = new TextEncoder();
const TASKS = "SELECT id, title_json, completed, created, changed FROM tasks ORDER BY id";
const KEYS = "SELECT scope, key, fingerprint, task_id, task_json FROM idempotency_keys ORDER BY seq";

/**
 * The list as tables in a SQLite database, of which this object must be the only writer: it
 * persists the changes of the list a {@link HeldList} holds and decides.
 */
export class SqliteList {
  readonly #db: SqliteConnection;
  /** Random per list, kept in the database: ETags stay valid across restarts and differ between lists. */
  readonly instance: string;
  /** Whether opening it started a new history: it was put back from a copy. */
  readonly newHistory: boolean;

  /**
   * Brings the database to the list's layout, and creates the list with its initial tasks if the
   * database holds none. A list put back from a copy (`restored`, or a copy `npm run backup` made)
   * starts a new history (see sqlite-copies.ts). Throws if the database cannot be read or written,
   * or holds a layout this version does not read.
   */
  constructor(db: SqliteConnection, options: { readonly restored?: boolean } = {}) {
    this.#db = db;
    const opened = db.transaction(() => {
      migrate(db);
      const row = db.query("SELECT instance FROM list")[0];
      if (row === undefined) return { instance: createList(db), newHistory: false };
      const newHistory = options.restored === true || isCopy(db);
      return { instance: newHistory ? startNewHistory(db) : String(row.instance), newHistory };
    });
    this.instance = opened.instance;
    this.newHistory = opened.newHistory;
  }

  /** The list as the tables hold it, in memory: its tasks with their change numbers, its deletions and its keys. */
  held(): HeldList {
    const db = this.#db;
    const row = db.query("SELECT change_number, highest_id, forgotten FROM list")[0] ?? {};
    const tasks = new EncodedList(this.instance, {
      tasks: storedTasks(db),
      deletions: db.query("SELECT id, change FROM deletions ORDER BY change").map((deletion) => ({
        id: Number(deletion.id),
        change: Number(deletion.change),
      })),
      change: Number(row.change_number ?? 0),
      highestId: Number(row.highest_id ?? 0),
      forgotten: Number(row.forgotten ?? 0),
    });
    const keys: RememberedKey[] = db.query(KEYS).map((key) => ({
      scope: String(key.scope),
      key: String(key.key),
      fingerprint: String(key.fingerprint),
      taskId: Number(key.task_id),
      json: String(key.task_json),
    }));
    return new HeldList(tasks, keys);
  }

  /** Writes one change in one transaction: the task's row, the list's counters, and what goes with it. */
  persist(change: ListChange): void {
    const db = this.#db;
    db.transaction(() => {
      if (change.kind === "add") {
        const { task, key } = change;
        db.query(
          "INSERT INTO tasks (id, title_json, completed, created, changed) VALUES (?, ?, ?, ?, ?)",
          task.id,
          JSON.stringify(task.title),
          Number(task.completed),
          change.change,
          change.change,
        );
        db.query("UPDATE list SET change_number = ?, highest_id = ?", change.change, task.id);
        if (key === undefined) return;
        for (const old of change.forgetKeys) {
          db.query("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?", key.scope, old);
        }
        db.query(
          "INSERT INTO idempotency_keys (scope, key, fingerprint, task_id, task_json) VALUES (?, ?, ?, ?, ?)",
          key.scope,
          key.key,
          key.fingerprint,
          task.id,
          change.text,
        );
      } else if (change.kind === "update") {
        const { task } = change;
        db.query(
          "UPDATE tasks SET title_json = ?, completed = ?, changed = ? WHERE id = ?",
          JSON.stringify(task.title),
          Number(task.completed),
          change.change,
          task.id,
        );
        db.query("UPDATE list SET change_number = ?", change.change);
      } else {
        db.query("DELETE FROM tasks WHERE id = ?", change.id);
        db.query("INSERT INTO deletions (change, id) VALUES (?, ?)", change.change, change.id);
        db.query("DELETE FROM deletions WHERE change <= ?", change.forgotten);
        db.query("UPDATE list SET change_number = ?, forgotten = ?", change.change, change.forgotten);
      }
    });
  }
}

/** Creates the list's row and its initial tasks, each created by the change numbered as its id; returns its instance. */
function createList(db: SqliteConnection): string {
  const instance = newInstance();
  const last = INITIAL_TASKS.at(-1)?.id ?? 0;
  db.query(
    "INSERT INTO list (only, instance, change_number, highest_id, forgotten) VALUES (1, ?, ?, ?, 0)",
    instance,
    last,
    last,
  );
  for (const task of INITIAL_TASKS) {
    db.query(
      "INSERT INTO tasks (id, title_json, completed, created, changed) VALUES (?, ?, ?, ?, ?)",
      task.id,
      JSON.stringify(task.title),
      Number(task.completed),
      task.id,
      task.id,
    );
  }
  return instance;
}

/** The tasks' rows in id order, each with its JSON built from its title's JSON string without parsing it. */
function* storedTasks(db: SqliteConnection): Iterable<StoredTask> {
  for (const row of db.iterate(TASKS)) {
    const id = Number(row.id);
    const text = `{"id":${id},"title":${String(row.title_json)},"completed":${row.completed === 1}}`;
    yield { id, json: encoder.encode(text), created: Number(row.created), changed: Number(row.changed) };
  }
}
