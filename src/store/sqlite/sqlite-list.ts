// One list as rows of a SQLite database, the one layout the file store and the Durable Objects
// share: its row (whether it lives, its title, its counters), read whole into memory, and written
// a change at a time.
import { newInstance } from "../../engine/new-history.ts";
import { EncodedList } from "../../list/encoded-list.ts";
import { HeldList, type ListChange } from "../../list/held-list.ts";
import type { Continuation, ListRecord } from "../../list/list-directory.ts";
import type { ListKey } from "../../list/list-keys.ts";
import type { RememberedKey } from "../../list/remembered-keys.ts";
import type { StoredTask } from "../../list/stored-list.ts";
import { FIELD_COLUMNS, INITIAL_TASKS, taskJsonOf } from "../../list/task.ts";
import type { SqliteConnection } from "./sqlite-connection.ts";
import { startNewHistory } from "./sqlite-copies.ts";
import { migrate } from "./sqlite-migrations.ts";
import { FIELD_PLACEHOLDERS, FIELD_SETTINGS, fieldsJson, fieldValues } from "./task-columns.ts";

const encoder = new TextEncoder();
const TASKS = `SELECT id, ${FIELD_COLUMNS}, created, changed FROM tasks WHERE list = ? ORDER BY id`;
const INSERT_TASK = `INSERT INTO tasks (list, id, ${FIELD_COLUMNS}, created, changed) VALUES (?, ?, ${FIELD_PLACEHOLDERS}, ?, ?)`;
const UPDATE_TASK = `UPDATE tasks SET ${FIELD_SETTINGS}, changed = ? WHERE list = ? AND id = ?`;
const KEYS = "SELECT scope, key, fingerprint, task_id, task_json FROM idempotency_keys WHERE list = ? ORDER BY seq";
const ROW =
  "SELECT title, version, live, instance, change_number, highest_id, forgotten, is_copy FROM lists WHERE name = ?";

/** A list's row: whether it lives, its title and own version, and where its ids and change numbers are. */
export interface ListRow {
  readonly live: boolean;
  readonly title: string;
  readonly version: string;
  readonly instance: string;
  readonly change: number;
  readonly highestId: number;
  readonly forgotten: number;
}

/**
 * Brings a database to the lists' layout (see sqlite-migrations.ts) in one transaction; a database
 * put back from a copy (`restored`, or one `npm run backup` marked) starts each of its lists on a
 * new history. Throws for a layout this version does not read.
 */
export function openSqliteDatabase(db: SqliteConnection, options: { readonly restored?: boolean } = {}): string[] {
  return db.transaction(() => {
    migrate(db);
    const copies = db
      .query("SELECT name FROM lists WHERE is_copy = 1 OR ? = 1", options.restored === true ? 1 : 0)
      .map((row) => String(row.name));
    for (const name of copies) startNewHistory(db, name);
    return copies;
  });
}

/**
 * One list of a SQLite database, of which this process or object must be the only writer: it
 * persists the changes of the list a {@link HeldList} holds and decides, and the list's own row.
 */
export class SqliteList {
  readonly #db: SqliteConnection;
  readonly name: string;

  /** List `name` of `db`, which {@link openSqliteDatabase} opened. */
  constructor(db: SqliteConnection, name: string) {
    this.#db = db;
    this.name = name;
  }

  /** The list's row, or undefined when the name never had a list. */
  row(): ListRow | undefined {
    const row = this.#db.query(ROW, this.name)[0];
    if (row === undefined) return undefined;
    return {
      live: row.live === 1,
      title: String(row.title),
      version: String(row.version),
      instance: String(row.instance),
      change: Number(row.change_number),
      highestId: Number(row.highest_id),
      forgotten: Number(row.forgotten),
    };
  }

  /** The list as the tables hold it, in memory: its tasks with their change numbers, its deletions and its keys. */
  held(row: ListRow): HeldList {
    const db = this.#db;
    const tasks = new EncodedList(row.instance, {
      tasks: storedTasks(db, this.name),
      deletions: db
        .query("SELECT id, change FROM deletions WHERE list = ? ORDER BY change", this.name)
        .map((deletion) => ({ id: Number(deletion.id), change: Number(deletion.change) })),
      change: row.change,
      highestId: row.highestId,
      forgotten: row.forgotten,
    });
    const keys: RememberedKey[] = db.query(KEYS, this.name).map((key) => ({
      scope: String(key.scope),
      key: String(key.key),
      fingerprint: String(key.fingerprint),
      taskId: Number(key.task_id),
      json: String(key.task_json),
    }));
    return new HeldList(tasks, keys);
  }

  /**
   * Makes the list live as `record`, at `position` in creation order, with a new instance: with its
   * initial tasks when `resume` is undefined (the default list), else empty, its ids and change
   * numbers after `resume`. Runs in the caller's transaction.
   */
  create(record: ListRecord, position: number, resume: Continuation | undefined): void {
    const db = this.#db;
    const start = resume ?? { highestId: INITIAL_TASKS.at(-1)?.id ?? 0, change: INITIAL_TASKS.at(-1)?.id ?? 0 };
    db.query(
      "INSERT OR REPLACE INTO lists (name, position, title, version, live, instance, change_number, highest_id, forgotten) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)",
      this.name,
      position,
      record.title,
      record.version,
      newInstance(),
      start.change,
      start.highestId,
      resume === undefined ? 0 : start.change,
    );
    if (resume !== undefined) return;
    for (const task of INITIAL_TASKS) {
      db.query(INSERT_TASK, this.name, task.id, ...fieldValues(task), task.id, task.id);
    }
  }

  /** Gives the list a new title and version. Runs in the caller's transaction. */
  retitle(record: ListRecord): void {
    this.#db.query("UPDATE lists SET title = ?, version = ? WHERE name = ?", record.title, record.version, this.name);
  }

  /** Deletes the list's tasks, deletions and keys, keeping where its ids and change numbers stopped. Runs in the caller's transaction. */
  delete(): void {
    const db = this.#db;
    db.query("DELETE FROM tasks WHERE list = ?", this.name);
    db.query("DELETE FROM deletions WHERE list = ?", this.name);
    db.query("DELETE FROM idempotency_keys WHERE list = ?", this.name);
    db.query("DELETE FROM access_keys WHERE list = ?", this.name);
    db.query("UPDATE lists SET live = 0 WHERE name = ?", this.name);
  }

  /** The list's keys, oldest first. */
  keys(): ListKey[] {
    return this.#db
      .query("SELECT id, access, label_json, expires, hash FROM access_keys WHERE list = ? ORDER BY seq", this.name)
      .map((row) => ({
        id: String(row.id),
        access: row.access === "write" ? "write" : "read",
        label: JSON.parse(String(row.label_json)) as string,
        expires: row.expires === null ? null : String(row.expires),
        hash: String(row.hash),
      }));
  }

  /** Writes a key's row. */
  addKey(row: ListKey): void {
    this.#db.query(
      "INSERT INTO access_keys (list, id, access, label_json, expires, hash) VALUES (?, ?, ?, ?, ?, ?)",
      this.name,
      row.id,
      row.access,
      JSON.stringify(row.label),
      row.expires,
      row.hash,
    );
  }

  /** Deletes a key's row. */
  removeKey(id: string): void {
    this.#db.query("DELETE FROM access_keys WHERE list = ? AND id = ?", this.name, id);
  }

  /** Writes one change in one transaction: the task's row, the list's counters, and what goes with it. */
  persist(change: ListChange): void {
    const db = this.#db;
    const name = this.name;
    db.transaction(() => {
      if (change.kind === "add") {
        const { task, key } = change;
        db.query(INSERT_TASK, name, task.id, ...fieldValues(task), change.change, change.change);
        db.query("UPDATE lists SET change_number = ?, highest_id = ? WHERE name = ?", change.change, task.id, name);
        if (key === undefined) return;
        for (const old of change.forgetKeys) {
          db.query("DELETE FROM idempotency_keys WHERE list = ? AND scope = ? AND key = ?", name, key.scope, old);
        }
        db.query(
          "INSERT INTO idempotency_keys (list, scope, key, fingerprint, task_id, task_json) VALUES (?, ?, ?, ?, ?, ?)",
          name,
          key.scope,
          key.key,
          key.fingerprint,
          task.id,
          change.text,
        );
      } else if (change.kind === "update") {
        const { task } = change;
        db.query(UPDATE_TASK, ...fieldValues(task), change.change, name, task.id);
        db.query("UPDATE lists SET change_number = ? WHERE name = ?", change.change, name);
      } else {
        db.query("DELETE FROM tasks WHERE list = ? AND id = ?", name, change.id);
        db.query("INSERT INTO deletions (list, change, id) VALUES (?, ?, ?)", name, change.change, change.id);
        db.query("DELETE FROM deletions WHERE list = ? AND change <= ?", name, change.forgotten);
        db.query(
          "UPDATE lists SET change_number = ?, forgotten = ? WHERE name = ?",
          change.change,
          change.forgotten,
          name,
        );
      }
    });
  }
}

/** The list's tasks in id order, each with its JSON built from its title's JSON string without parsing it. */
function* storedTasks(db: SqliteConnection, list: string): Iterable<StoredTask> {
  for (const row of db.iterate(TASKS, list)) {
    const id = Number(row.id);
    const text = taskJsonOf(id, fieldsJson(row));
    yield { id, json: encoder.encode(text), created: Number(row.created), changed: Number(row.changed) };
  }
}
