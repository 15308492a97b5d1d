import { DatabaseSync } from "node:sqlite";

/** A task as the tables hold it. */
export interface StoredTask {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/**
 * Writes a list into a new SQLite file at `path` as the service did before it counted the list's
 * bytes: the same tables, without `list.json_bytes`. Nothing checked a size then, so the list may
 * be larger than any limit now.
 */
export function writeLegacyList(path: string, tasks: readonly StoredTask[]): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`
      CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL);
      CREATE TABLE list (only INTEGER PRIMARY KEY CHECK (only = 1), instance TEXT NOT NULL, task_count INTEGER NOT NULL);
      CREATE TRIGGER task_added AFTER INSERT ON tasks BEGIN UPDATE list SET task_count = task_count + 1; END;
      CREATE TRIGGER task_removed AFTER DELETE ON tasks BEGIN UPDATE list SET task_count = task_count - 1; END;
      INSERT INTO list (only, instance, task_count) VALUES (1, 'legacy0000000000', 0);
    `);
    const insert = db.prepare("INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)");
    db.exec("BEGIN");
    for (const task of tasks) insert.run(task.id, JSON.stringify(task.title), Number(task.completed));
    db.exec("COMMIT");
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
