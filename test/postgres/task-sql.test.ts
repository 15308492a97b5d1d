// PostgreSQL builds a task's JSON byte for byte as taskJson encodes it, for any title.
import postgres from "postgres";
import { afterAll, describe, expect, inject, test } from "vitest";
import { taskJson } from "../../src/list/task.ts";
import { postgresTaskJson } from "../../src/list/task-sql.ts";
import { hostileTasks } from "../support/hostile-titles.ts";

const { url } = inject("postgres");
const sql = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
afterAll(() => sql.end());
const encoder = new TextEncoder();

describe("a task's JSON built by PostgreSQL", () => {
  test("is taskJson's bytes for hostile titles, completed and not", async () => {
    await sql.unsafe(`DROP SCHEMA IF EXISTS task_sql CASCADE;
      CREATE SCHEMA task_sql;
      CREATE TABLE task_sql.tasks (id integer PRIMARY KEY, title_json text NOT NULL, completed boolean NOT NULL)`);
    const tasks = hostileTasks();
    for (const task of tasks) {
      await sql`INSERT INTO task_sql.tasks (id, title_json, completed)
        VALUES (${task.id}, ${JSON.stringify(task.title)}, ${task.completed})`;
    }
    const rows = await sql.unsafe(
      `SELECT id, encode(convert_to(${postgresTaskJson()}, 'UTF8'), 'hex') AS json FROM task_sql.tasks ORDER BY id`,
    );
    expect(rows).toHaveLength(tasks.length);
    const byId = new Map(tasks.map((task) => [task.id, task]));
    for (const row of rows) {
      const task = byId.get(Number(row.id));
      expect(task).toBeDefined();
      if (task === undefined) continue;
      expect(row.json, JSON.stringify(task)).toBe(Buffer.from(encoder.encode(taskJson(task))).toString("hex"));
    }
  });
});
