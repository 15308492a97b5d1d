// PostgreSQL builds a task's JSON byte for byte as taskJson encodes it, for any title.
import postgres from "postgres";
import { afterAll, describe, inject, test } from "vitest";
import { postgresTaskJson } from "../../src/store/postgres/task-columns.ts";
import { expectTaskJsonRows, hostileTasks } from "../support/hostile-titles.ts";

const { url } = inject("postgres");
const sql = postgres(url, { max: 1, fetch_types: false, onnotice: () => {} });
afterAll(() => sql.end());

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
    expectTaskJsonRows(
      rows.map((row) => ({ id: row.id, hex: String(row.json) })),
      tasks,
    );
  });
});
