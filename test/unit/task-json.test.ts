// A task's JSON carries its id, then each field of the field table in the table's order, and the
// helpers that read it without parsing find what taskJson wrote.
import { describe, expect, test } from "vitest";
import { completedAt, readId, TASK_FIELDS, taskJson, titleJsonIn } from "../../src/list/task.ts";
import { hostileTasks } from "../support/hostile-titles.ts";

const encoder = new TextEncoder();

describe("a task's JSON", () => {
  test("gives the id, then each field of TASK_FIELDS, in the table's order and no other key", () => {
    for (const completed of [true, false]) {
      const json = taskJson({ id: 7, title: "Water the plants", completed });
      expect(Object.keys(JSON.parse(json) as object)).toEqual(["id", ...TASK_FIELDS.map((field) => field.name)]);
    }
  });

  test("is read back without parsing: its id, its title's JSON and its completed, for hostile titles", () => {
    for (const task of hostileTasks()) {
      const bytes = encoder.encode(taskJson(task));
      expect(readId(bytes)).toBe(task.id);
      expect(new TextDecoder().decode(titleJsonIn(bytes, task.id, task.completed))).toBe(JSON.stringify(task.title));
      expect(completedAt(bytes, bytes.byteLength)).toBe(task.completed ? 1 : 0);
    }
  });
});
