import { expect, test } from "vitest";
import { EncodedList } from "../../src/list/encoded-list.ts";
import { encodeTask } from "../../src/list/stored-list.ts";
import type { Task } from "../../src/list/task.ts";
import { checkPages, pageText } from "../support/list-pages.ts";

const encoder = new TextEncoder();
const LIMITS = { maxTasks: 1_000_000, maxBytes: 1 << 30, maxKeys: 0 };

/** A list of `count` tasks taken as text, as POST adds them, whose state follows `completed`. */
function listOf(count: number, completed: (id: number) => boolean, title = (id: number) => `task ${id}`): EncodedList {
  const list = new EncodedList("a");
  for (let id = 1; id <= count; id++) {
    list.pushText(JSON.stringify({ id, title: title(id), completed: completed(id) }), id, LIMITS);
  }
  return list;
}

test("pages of a list over many chunks: each filter, from any id, with any limit, is the tasks that fit, and says where the next page starts", () => {
  // Titles that end like a task's state must not be taken for it.
  const title = (id: number) => (id % 5 === 0 ? 'ends "completed":true}' : `t${id} é🎉 "completed":false}`);
  const list = listOf(6000, (id) => id % 3 === 0, title);
  expect(list.read().body().parts.length).toBeGreaterThan(2);
  checkPages(list.read(), [1, 2, 999, 1999, 2000, 2001, 10_000]);
  const first = pageText(list.read(), { after: 0, completed: true, limit: 2 });
  expect(first.next).toBe(6);
  expect(JSON.parse(first.text)).toEqual([
    { id: 3, title: 't3 é🎉 "completed":false}', completed: true },
    { id: 6, title: 't6 é🎉 "completed":false}', completed: true },
  ]);
});

test("an edit that changes a task's state moves it between the filters, in every version after it and none before", () => {
  const list = listOf(3000, () => false);
  const before = list.read();
  for (let id = 1; id <= 3000; id += 7) {
    const edited: Task = { id, title: `done ${id}`, completed: true };
    expect(list.replace(id, encodeTask(edited))).toBe(true);
  }
  for (let id = 2; id <= 3000; id += 11) list.remove(id);
  const after = list.read();
  expect(pageText(before, { after: 0, completed: true })).toEqual({ text: "[]", next: undefined });
  const done = JSON.parse(pageText(after, { after: 0, completed: true }).text) as Task[];
  expect(done.map((task) => task.id)).toEqual(
    Array.from({ length: 429 }, (_, i) => 1 + 7 * i).filter((id) => (id - 2) % 11 !== 0),
  );
  checkPages(after, [1, 3, 500]);
  // Back to not completed: the task leaves completed=true again.
  expect(list.replace(8, encodeTask({ id: 8, title: "undone", completed: false }))).toBe(true);
  expect(JSON.parse(pageText(list.read(), { after: 7, completed: true, limit: 1 }).text)).toEqual([
    { id: 15, title: "done 15", completed: true },
  ]);
});

test("a list kept by a store or copied from one knows each task's state as well as one it encoded", () => {
  const tasks = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, title: `stored ${i}`, completed: i % 4 === 1 }));
  const stored = new EncodedList("s", {
    tasks: tasks.map((task) => ({ id: task.id, json: encodeTask(task), created: task.id, changed: task.id })),
    deletions: [],
    change: 50,
    highestId: 50,
    forgotten: 0,
  });
  checkPages(stored.read());
  const copy = new EncodedList("s", tasks.slice(0, 10));
  const changes = tasks
    .slice(10)
    .map((task) => ({ id: task.id, change: task.id, created: task.id, json: encodeTask(task) }));
  changes.push({ id: 4, change: 51, created: 4, json: encodeTask({ id: 4, title: "copied edit", completed: true }) });
  expect(copy.copy(changes, 50)).toBe(true);
  expect(pageText(copy.read(), { after: 0, completed: true, limit: 2 }).text).toBe(
    JSON.stringify([tasks[1], { id: 4, title: "copied edit", completed: true }]),
  );
  checkPages(copy.read());
});

test("a large page of scattered tasks is sent in blocks, not a part per task", () => {
  const list = listOf(40_000, (id) => id % 2 === 0);
  const { body } = list.read().page({ after: 0, completed: true });
  expect(body.byteLength).toBeGreaterThan(512 * 1024);
  expect(body.parts.length).toBeLessThan(body.byteLength / 32_768);
  const expected = Array.from({ length: 20_000 }, (_, i) => ({
    id: 2 * (i + 1),
    title: `task ${2 * (i + 1)}`,
    completed: true,
  }));
  expect(pageText(list.read(), { after: 0, completed: true }).text === JSON.stringify(expected)).toBe(true);
  expect(body.byteLength).toBe(encoder.encode(JSON.stringify(expected)).byteLength);
});

test("a page with no filter is views of the list's own bytes, never a copy", () => {
  const list = listOf(40_000, () => false);
  const whole = list.read().body();
  const { body } = list.read().page({ after: 100, limit: 10_000 });
  expect(body.byteLength).toBeGreaterThan(256 * 1024);
  expect(body.parts.slice(1, -1).every((part) => whole.parts.some((chunk) => chunk.buffer === part.buffer))).toBe(true);
});
