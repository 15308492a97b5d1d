// SQLite files as earlier versions of the service wrote them: to prove which layouts a server reads.
import { DatabaseSync } from "node:sqlite";

/** A task as the tables hold it. */
export interface StoredTask {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/**
 * Writes a list into a new SQLite file at `path` as version 0.1.0 did, without a version row: its
 * row counted the tasks and their bytes, kept by triggers, and a key might have no `task_json`.
 * Each task was created by the change numbered as its id. Nothing checked a size, so the list may
 * be larger than any limit now. With `key`, one Idempotency-Key of the first task, without its JSON.
 */
export function writeReleasedList(path: string, tasks: readonly StoredTask[], key?: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`
      CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL, created INTEGER, changed INTEGER);
      CREATE TABLE list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL, json_bytes INTEGER, change_number INTEGER, highest_id INTEGER, forgotten INTEGER NOT NULL DEFAULT 0, is_copy INTEGER NOT NULL DEFAULT 0);
      CREATE TRIGGER task_added AFTER INSERT ON tasks BEGIN UPDATE list SET task_count = task_count + 1; END;
      CREATE TRIGGER task_removed AFTER DELETE ON tasks BEGIN UPDATE list SET task_count = task_count - 1; END;
      CREATE TRIGGER bytes_unknown_after_delete AFTER DELETE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END;
      CREATE TRIGGER bytes_unknown_after_update AFTER UPDATE ON tasks BEGIN UPDATE list SET json_bytes = NULL; END;
      CREATE TABLE idempotency_keys (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, task_id INTEGER NOT NULL, task_json TEXT, UNIQUE (scope, key));
      CREATE TABLE deletions (change INTEGER PRIMARY KEY, id INTEGER NOT NULL);
    `);
    const last = tasks.at(-1)?.id ?? 0;
    db.prepare(
      "INSERT INTO list (only, instance, task_count, json_bytes, change_number, highest_id) VALUES (1, 'released00000000', 0, NULL, ?, ?)",
    ).run(last, last);
    const insert = db.prepare("INSERT INTO tasks (id, title_json, completed, created, changed) VALUES (?, ?, ?, ?, ?)");
    db.exec("BEGIN");
    for (const task of tasks) insert.run(task.id, JSON.stringify(task.title), Number(task.completed), task.id, task.id);
    db.exec("COMMIT");
    const first = tasks[0];
    if (key !== undefined && first !== undefined) {
      db.prepare("INSERT INTO idempotency_keys (scope, key, fingerprint, task_id) VALUES ('', ?, ?, ?)").run(
        key,
        "fingerprint",
        first.id,
      );
    }
  } finally {
    db.close();
  }
}

/** Writes a list at `path` as the service did before version 0.1.0: no change numbers, no byte count. */
export function writeOlderList(path: string, tasks: readonly StoredTask[]): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`
      CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL);
      CREATE TABLE list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL);
      INSERT INTO list (only, instance, task_count) VALUES (1, 'legacy0000000000', 0);
    `);
    const insert = db.prepare("INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)");
    for (const task of tasks) insert.run(task.id, JSON.stringify(task.title), Number(task.completed));
  } finally {
    db.close();
  }
}

/** `count` tasks with ids 1..count and titles of `titleLength` characters, several bytes each in UTF-8. */
export function largeTasks(count: number, titleLength: number): StoredTask[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    title: `${i + 1} ${"é€".repeat(titleLength / 2)}`.slice(0, titleLength),
    completed: i % 2 === 0,
  }));
}
