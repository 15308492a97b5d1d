import { expect, test } from "vitest";
import { EncodedList } from "../../src/store/encoded-list.ts";
import type { Task } from "../../src/store/store.ts";

const decoder = new TextDecoder();
const task = (id: number, title: string): Task => ({ id, title, completed: id % 2 === 0 });

test("holds exactly the JSON array of its tasks, keys in order, empty or not", () => {
  const list = new EncodedList();
  expect(decoder.decode(list.bytes())).toBe("[]");
  const tasks = [task(1, "a"), task(2, 'quote " and \\ and é and 🎉'), task(7, "")];
  for (const t of tasks) list.push(t);
  expect(decoder.decode(list.bytes())).toBe(JSON.stringify(tasks));
  expect(list.count).toBe(3);
  expect(list.lastId).toBe(7);
});

test("keeps its bytes exact while it grows far past its first buffer and past its reserved space", () => {
  const list = new EncodedList();
  // 300 tasks of 256 KiB: about 77 MiB, beyond the 64 MiB the list reserves at first.
  const title = "x".repeat(256 * 1024);
  const tasks = Array.from({ length: 300 }, (_, i) => task(i + 1, title));
  for (const t of tasks) list.push(t);
  expect(decoder.decode(list.bytes()) === JSON.stringify(tasks)).toBe(true);
});

test("never changes a snapshot it handed out, however many tasks come after", () => {
  const list = new EncodedList([task(1, "first")]);
  const before = list.bytes();
  const copy = before.slice();
  for (let id = 2; id <= 5000; id++) list.push(task(id, `task ${id}`));
  expect(before).toEqual(copy);
  expect(list.bytes()).not.toBe(before);
  expect(list.bytes()).toBe(list.bytes());
});
