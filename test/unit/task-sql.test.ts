// SQLite builds a task's JSON byte for byte as taskJson encodes it, for any title.
import { DatabaseSync } from "node:sqlite";
import { describe, expect, test } from "vitest";
import { taskJson } from "../../src/list/task.ts";
import { sqliteTaskJson } from "../../src/list/task-sql.ts";
import { hostileTasks } from "../support/hostile-titles.ts";

const encoder = new TextEncoder();

describe("a task's JSON built by SQLite", () => {
  test("is taskJson's bytes for hostile titles, completed and not", () => {
    const db = new DatabaseSync(":memory:");
    db.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, title_json TEXT NOT NULL, completed INTEGER NOT NULL)");
    const insert = db.prepare("INSERT INTO tasks (id, title_json, completed) VALUES (?, ?, ?)");
    const tasks = hostileTasks();
    for (const task of tasks) insert.run(task.id, JSON.stringify(task.title), task.completed ? 1 : 0);
    const rows = db.prepare(`SELECT id, CAST(${sqliteTaskJson()} AS BLOB) AS json FROM tasks ORDER BY id`).all();
    db.close();
    expect(rows).toHaveLength(tasks.length);
    const byId = new Map(tasks.map((task) => [task.id, task]));
    for (const row of rows) {
      const task = byId.get(Number(row.id));
      expect(task).toBeDefined();
      if (task === undefined) continue;
      expect(Buffer.from(row.json as Uint8Array).toString("hex"), JSON.stringify(task)).toBe(
        Buffer.from(encoder.encode(taskJson(task))).toString("hex"),
      );
    }
  });
});
