import { expect, test } from "vitest";
import { EncodedList, encodeTask } from "../../src/store/encoded-list.ts";
import type { Task } from "../../src/store/store.ts";
import { joinParts } from "./helpers.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const task = (id: number, title: string): Task => ({ id, title, completed: id % 2 === 0 });
const text = (list: EncodedList) => decoder.decode(joinParts(list.body()));

test("holds exactly the JSON array of its tasks, keys in order, empty or not", () => {
  const list = new EncodedList();
  expect(text(list)).toBe("[]");
  expect(list.usage).toEqual({ tasks: 0, bytes: 2 });
  const tasks = [task(1, "a"), task(2, 'quote " and \\ and é and 🎉'), task(7, "")];
  for (const t of tasks) list.push(t);
  expect(text(list)).toBe(JSON.stringify(tasks));
  expect(list.count).toBe(3);
  expect(list.lastId).toBe(7);
  expect(list.usage).toEqual({ tasks: 3, bytes: encoder.encode(JSON.stringify(tasks)).byteLength });
});

test("counts what a task adds: its JSON, and a comma after the first task", () => {
  const list = new EncodedList();
  const first = encodeTask(task(1, "é"));
  expect(list.addedBytes(first)).toBe(first.byteLength);
  list.push(task(1, "é"));
  const second = encodeTask(task(2, "b"));
  expect(list.addedBytes(second)).toBe(second.byteLength + 1);
  list.push(task(2, "b"));
  expect(list.body().byteLength).toBe(list.usage.bytes);
});

test("takes tasks already encoded and joined by commas as if they were pushed one by one", () => {
  const tasks = [task(1, "one"), task(2, "two"), task(3, "three")];
  const pushed = new EncodedList(tasks.slice(0, 1));
  const joined = encoder.encode(
    tasks
      .slice(1)
      .map((t) => JSON.stringify(t))
      .join(","),
  );
  pushed.pushEncoded(joined, 2, 3);
  expect(text(pushed)).toBe(JSON.stringify(tasks));
  expect(pushed.lastId).toBe(3);
  expect(pushed.count).toBe(3);
});

test("keeps its bytes exact while it grows over many pages", () => {
  const list = new EncodedList();
  // 80 tasks of 256 KiB: about 20 MiB, over twenty pages, with tasks that span pages.
  const title = "x".repeat(256 * 1024 + 7);
  const tasks = Array.from({ length: 80 }, (_, i) => task(i + 1, title));
  for (const t of tasks) list.push(t);
  const body = list.body();
  expect(body.parts.length).toBeGreaterThan(20);
  expect(body.byteLength).toBe(list.usage.bytes);
  expect(decoder.decode(joinParts(body)) === JSON.stringify(tasks)).toBe(true);
});

test("never changes a body it handed out, short or long, however many tasks come after", () => {
  const list = new EncodedList([task(1, "first")]);
  const bodies = [];
  for (let id = 2; id <= 10_000; id++) {
    if (id % 2000 === 0) bodies.push({ body: list.body(), copy: joinParts(list.body()) });
    list.push(task(id, `task ${id}`));
  }
  expect(bodies.at(-1)?.body.parts.length).toBeGreaterThan(1);
  for (const { body, copy } of bodies) expect(joinParts(body)).toEqual(copy);
  expect(list.body()).toBe(list.body());
});

test("a long list is in memory once: bodies of different versions share its pages", () => {
  const list = new EncodedList();
  for (let id = 1; id <= 8000; id++) list.push(task(id, `task number ${id}`));
  const before = list.body();
  list.push(task(8001, "one more"));
  const after = list.body();
  expect(after.parts[0]).toBe(before.parts[0]);
  expect(after.parts[0]?.buffer).toBe(before.parts[0]?.buffer);
});
