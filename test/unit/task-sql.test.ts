// SQLite builds a task's JSON byte for byte as taskJson encodes it, for any title.
import { DatabaseSync } from "node:sqlite";
import { describe, test } from "vitest";
import { sqliteTaskJson } from "../../src/list/task-sql.ts";
import { expectTaskJsonRows, hostileTasks } from "../support/hostile-titles.ts";

describe("a task's JSON built by SQLite", () => {
  test("is taskJson's bytes for hostile titles, completed and not", () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL)");
    const insert = db.prepare("INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)");
    const tasks = hostileTasks();
    for (const task of tasks) insert.run(task.id, JSON.stringify(task.title), task.completed ? 1 : 0);
    const rows = db.prepare(`SELECT id, CAST(${sqliteTaskJson()} AS BLOB) AS json FROM tasks ORDER BY id`).all();
    db.close();
    expectTaskJsonRows(
      rows.map((row) => ({ id: row.id, hex: Buffer.from(row.json as Uint8Array).toString("hex") })),
      tasks,
    );
  });
});
