import { EncodedList } from "./encoded-list.ts";
import { INITIAL_TASKS, isKnown, type ListRead, type NewTask, type Task, type TaskStore } from "./store.ts";

/** A value SQLite binds or returns that this store uses. */
export type SqlValue = string | number | null;

/**
 * The little of a SQLite connection the store needs, so that node:sqlite, bun:sqlite and a
 * Durable Object's `ctx.storage.sql` all fit behind it.
 */
export interface SqliteConnection {
  /** Runs one statement to completion with `params` bound to its `?`s, and returns its rows. */
  query(sql: string, ...params: SqlValue[]): Record<string, unknown>[];
  /** Runs `work` in one transaction: everything it wrote commits, or nothing does if it throws. */
  transaction<T>(work: () => T): T;
}

/** A connection to a database file, which a Node, Bun or Deno server opens and may close. */
export interface SqliteFileConnection extends SqliteConnection {
  close(): void;
}

/**
 * Pragmas for a database file that one process alone writes. EXCLUSIVE locking holds the file from
 * the first access until the process ends, so a second server on the same file fails at start
 * rather than letting two cached lists drift apart; WAL makes an append one write to the log.
 */
export const WRITER_PRAGMAS = ["PRAGMA locking_mode = EXCLUSIVE", "PRAGMA journal_mode = WAL"];

const SCHEMA = [
  // A title is kept as its JSON string literal: SQLite text cannot hold the lone surrogates a JSON
  // title may carry, and Deno's node:sqlite cuts text it reads back at the first NUL.
  "CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL)",
  // One row: the list's random instance id, which sets its ETags apart from every other list's, and
  // its task count, kept by triggers so an append checks MAX_TASKS without counting the table.
  "CREATE TABLE IF NOT EXISTS list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL)",
  "CREATE TRIGGER IF NOT EXISTS task_added AFTER INSERT ON tasks BEGIN UPDATE list SET task_count = task_count + 1; END",
  "CREATE TRIGGER IF NOT EXISTS task_removed AFTER DELETE ON tasks BEGIN UPDATE list SET task_count = task_count - 1; END",
];

// One statement, so the count check, the next id and the insert commit together or not at all.
const APPEND = `INSERT INTO tasks (id, title_json, completed)
SELECT (SELECT COALESCE(MAX(id), 0) FROM tasks) + 1, ?, ? FROM list WHERE task_count < ?
RETURNING id`;

/**
 * The list in a SQLite database. It must be the database's only writer: reads are served from an
 * {@link EncodedList} that follows each committed append, so a read never touches the database.
 */
export class SqliteStore implements TaskStore {
  readonly #db: SqliteConnection;
  readonly #instance: string;
  readonly #list: EncodedList;

  /**
   * Creates the schema and the initial tasks if the database holds no list yet, then loads the
   * list. Throws if the database cannot be read or written.
   */
  constructor(db: SqliteConnection) {
    this.#db = db;
    this.#instance = db.transaction(() => {
      for (const statement of SCHEMA) db.query(statement);
      const existing = db.query("SELECT instance FROM list")[0]?.instance;
      if (typeof existing === "string") return existing;
      const instance = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
      db.query("INSERT INTO list (only, instance, task_count) VALUES (1, ?, 0)", instance);
      for (const task of INITIAL_TASKS) {
        db.query(
          "INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)",
          task.id,
          JSON.stringify(task.title),
          Number(task.completed),
        );
      }
      return instance;
    });
    this.#list = new EncodedList(db.query("SELECT id, title_json, completed FROM tasks ORDER BY id").map(toTask));
  }

  async read(known: readonly string[]): Promise<ListRead> {
    const version = `${this.#instance}-${this.#list.count}`;
    return isKnown(version, known) ? { version } : { version, body: this.#list.bytes() };
  }

  async append(task: NewTask, maxTasks: number): Promise<Task | undefined> {
    const row = this.#db.query(APPEND, JSON.stringify(task.title), Number(task.completed), maxTasks)[0];
    if (row === undefined) return undefined;
    const created: Task = { id: Number(row.id), title: task.title, completed: task.completed };
    this.#list.push(created);
    return created;
  }
}

function toTask(row: Record<string, unknown>): Task {
  const { id, title_json, completed } = row;
  const title: unknown = typeof title_json === "string" ? JSON.parse(title_json) : undefined;
  if (typeof id !== "number" || typeof title !== "string" || (completed !== 0 && completed !== 1)) {
    throw new Error(`The tasks table holds a row that is not a task: ${JSON.stringify(row)}`);
  }
  return { id, title, completed: completed === 1 };
}
