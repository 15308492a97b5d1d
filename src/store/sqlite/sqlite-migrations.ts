// The numbered migrations of a list's SQLite database, the same for a file and a Durable Object's
// storage: applied in order when the list opens, each once, its number kept in the database.
import type { SqliteConnection } from "./sqlite-connection.ts";

/**
 * Each migration's statements; the version of a database is how many ran. A title is kept as its
 * JSON string literal: SQLite text cannot hold the lone surrogates a JSON title may carry, and
 * Deno's node:sqlite cuts text it reads back at the first NUL.
 */
const MIGRATIONS: readonly (readonly string[])[] = [
  // 1: the layout version 0.1.0 wrote, which kept the list's count and bytes in its row.
  [
    "CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL, created INTEGER, changed INTEGER)",
    "CREATE TABLE list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL, json_bytes INTEGER, change_number INTEGER, highest_id INTEGER, forgotten INTEGER NOT NULL DEFAULT 0, is_copy INTEGER NOT NULL DEFAULT 0)",
    "CREATE TRIGGER task_added AFTER INSERT ON tasks BEGIN UPDATE list SET task_count = task_count + 1; END",
    "CREATE TRIGGER task_removed AFTER DELETE ON tasks BEGIN UPDATE list SET task_count = task_count - 1; END",
    "CREATE TRIGGER bytes_unknown_after_delete AFTER DELETE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END",
    "CREATE TRIGGER bytes_unknown_after_update AFTER UPDATE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END",
    "CREATE TABLE idempotency_keys (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, task_id INTEGER NOT NULL, task_json TEXT, UNIQUE (scope, key))",
    "CREATE INDEX idempotency_keys_by_scope ON idempotency_keys (scope)",
    "CREATE TABLE deletions (change INTEGER PRIMARY KEY, id INTEGER NOT NULL)",
    "CREATE INDEX tasks_by_change ON tasks (changed)",
  ],
  // 2: the list is held in memory, which counts it and keeps its latest changes; every key keeps
  // its task as first returned.
  [
    "DROP TRIGGER task_added",
    "DROP TRIGGER task_removed",
    "DROP TRIGGER bytes_unknown_after_delete",
    "DROP TRIGGER bytes_unknown_after_update",
    "ALTER TABLE list DROP COLUMN task_count",
    "ALTER TABLE list DROP COLUMN json_bytes",
    "DROP TABLE IF EXISTS journal",
    `UPDATE idempotency_keys SET task_json = (SELECT '{"id":' || id || ',"title":' || title_json || ',"completed":' || (CASE completed WHEN 1 THEN 'true' ELSE 'false' END) || '}' FROM tasks WHERE tasks.id = task_id) WHERE task_json IS NULL`,
    "DELETE FROM idempotency_keys WHERE task_json IS NULL",
    "UPDATE tasks SET created = id, changed = id WHERE changed IS NULL",
  ],
  // 3: many lists. Each list has its row, with its own instance and counters, whether it lives, its
  // title and its own version, and its place in creation order; every task, deletion and key is its
  // list's. The directory's row versions the enumeration; a POST's keys name the list they made.
  // The one list of a database before is `default`.
  [
    "CREATE TABLE lists (name TEXT PRIMARY KEY, position INTEGER NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, live INTEGER NOT NULL, instance TEXT NOT NULL, change_number INTEGER NOT NULL, highest_id INTEGER NOT NULL, forgotten INTEGER NOT NULL, is_copy INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE directory (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, change INTEGER NOT NULL)",
    "INSERT INTO directory (only, instance, change) VALUES (1, lower(hex(randomblob(8))), 0)",
    "INSERT INTO lists SELECT 'default', 0, 'Tasks', (SELECT instance FROM directory) || '-l0', 1, instance, change_number, highest_id, forgotten, is_copy FROM list",
    "CREATE TABLE list_keys (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, json TEXT NOT NULL, UNIQUE (scope, key))",
    "CREATE TABLE tasks_of_lists (list TEXT NOT NULL, id INTEGER NOT NULL, title_json TEXT NOT NULL, completed INTEGER NOT NULL, created INTEGER NOT NULL, changed INTEGER NOT NULL, PRIMARY KEY (list, id))",
    "INSERT INTO tasks_of_lists SELECT 'default', id, title_json, completed, created, changed FROM tasks",
    "CREATE TABLE deletions_of_lists (list TEXT NOT NULL, change INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (list, change))",
    "INSERT INTO deletions_of_lists SELECT 'default', change, id FROM deletions",
    "CREATE TABLE keys_of_lists (seq INTEGER PRIMARY KEY AUTOINCREMENT, list TEXT NOT NULL, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, task_id INTEGER NOT NULL, task_json TEXT NOT NULL, UNIQUE (list, scope, key))",
    "INSERT INTO keys_of_lists (list, scope, key, fingerprint, task_id, task_json) SELECT 'default', scope, key, fingerprint, task_id, task_json FROM idempotency_keys ORDER BY seq",
    "DROP TABLE tasks",
    "DROP TABLE deletions",
    "DROP TABLE idempotency_keys",
    "DROP TABLE list",
    "ALTER TABLE tasks_of_lists RENAME TO tasks",
    "ALTER TABLE deletions_of_lists RENAME TO deletions",
    "ALTER TABLE keys_of_lists RENAME TO idempotency_keys",
  ],
  // 4: the directory's calls to lists kept elsewhere (each list's own Durable Object) that are
  // decided but not yet made: a list's creation, retitling or deletion, made again until it is.
  [
    "CREATE TABLE list_intents (name TEXT PRIMARY KEY, action TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL)",
  ],
  // 5: the keys that share a list, each kept as the SHA-256 of the key, never the key itself; a
  // label as its JSON string literal, as a title is.
  [
    "CREATE TABLE access_keys (seq INTEGER PRIMARY KEY AUTOINCREMENT, list TEXT NOT NULL, id TEXT NOT NULL, access TEXT NOT NULL, label_json TEXT NOT NULL, expires TEXT, hash TEXT NOT NULL, UNIQUE (list, id))",
    "CREATE INDEX access_keys_by_list ON access_keys (list)",
  ],
];

/** The version a database is at once every migration ran. */
export const SQLITE_VERSION = MIGRATIONS.length;

/** Columns version 0.1.0's layout has: a database without a version that has them all is at version 1. */
const RELEASED_COLUMNS = [
  ["tasks", "changed"],
  ["list", "is_copy"],
  ["list", "forgotten"],
  ["idempotency_keys", "task_json"],
] as const;

/**
 * Brings the database to {@link SQLITE_VERSION}, running the migrations it lacks in order. Runs in
 * the opening transaction. Throws for a database of a newer version, or one that holds a list of
 * a layout older than 0.1.0's.
 */
export function migrate(db: SqliteConnection): void {
  db.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  let version = Number(db.query("SELECT version FROM schema_version")[0]?.version ?? versionWithoutRow(db));
  if (version > SQLITE_VERSION) {
    throw new Error(
      `The database is at version ${version} of the list's layout, made by a newer version of the service than this one (${SQLITE_VERSION}): run that version`,
    );
  }
  for (; version < SQLITE_VERSION; version++) {
    for (const statement of MIGRATIONS[version] ?? []) db.query(statement);
  }
  db.query("DELETE FROM schema_version");
  db.query("INSERT INTO schema_version (version) VALUES (?)", version);
}

/** The version of a database without a version row: 0 when it holds no list, 1 for version 0.1.0's layout. */
function versionWithoutRow(db: SqliteConnection): number {
  if (db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'list'").length === 0) return 0;
  for (const [table, column] of RELEASED_COLUMNS) {
    const columns = db.query(`SELECT name FROM pragma_table_info('${table}')`).map((row) => row.name);
    if (!columns.includes(column)) {
      throw new Error(
        `The database holds a list of a layout older than version 0.1.0's (its ${table} table has no ${column} column), which this version does not read: open it with the version that made it, take its tasks out with GET /tasks, and put them into a new list`,
      );
    }
  }
  return 1;
}
