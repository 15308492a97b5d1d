// The field table of a task: its JSON carries the id, then each field in the table's order, the
// helpers that read it without parsing find what taskJson wrote, and a value is a task, or a patch,
// only when each of its fields is of its type.
import { describe, expect, test } from "vitest";
import {
  completedAt,
  isNewTask,
  isTaskPatch,
  readId,
  TASK_FIELDS,
  taskJson,
  titleJsonIn,
} from "../../src/list/task.ts";
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

describe("a task's fields as a value, as the list's object takes them", () => {
  test("are a task when both fields are there, each of its type, and nothing else is", () => {
    expect(isNewTask({ title: "Call mum", completed: false })).toBe(true);
    expect(isNewTask({ title: "", completed: true })).toBe(true);
    // The body checks refuse a lone surrogate; a store carries any string it is given.
    expect(isNewTask({ title: "\ud800", completed: true })).toBe(true);
    for (const value of [
      { title: "Call mum" },
      { title: "Call mum", completed: "false" },
      { title: 7, completed: false },
      { title: "Call mum", completed: false, id: 3 },
      new TextEncoder().encode('"Call mum"'),
      ["Call mum", false],
      null,
      undefined,
      "Call mum",
    ]) {
      expect(isNewTask(value), JSON.stringify(value)).toBe(false);
    }
  });

  test("are a patch when each field there is of its type or undefined, none being there too", () => {
    for (const value of [
      {},
      { title: "Call dad" },
      { completed: true },
      { title: "Call dad", completed: false },
      { title: undefined, completed: true },
    ]) {
      expect(isTaskPatch(value), JSON.stringify(value)).toBe(true);
    }
    for (const value of [
      { title: null },
      { completed: 1 },
      { title: "Call dad", due: "tomorrow" },
      new TextEncoder().encode('"Call dad"'),
      undefined,
      true,
    ]) {
      expect(isTaskPatch(value), JSON.stringify(value)).toBe(false);
    }
  });
});
