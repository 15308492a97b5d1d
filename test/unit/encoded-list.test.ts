import { expect, test } from "vitest";
import { EncodedList } from "../../src/list/encoded-list.ts";
import { encodeTask } from "../../src/list/stored-list.ts";
import type { Task } from "../../src/list/task.ts";
import { joinParts, utf8 } from "./helpers.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const task = (id: number, title: string): Task => ({ id, title, completed: id % 2 === 0 });
const push = (list: EncodedList, t: Task) => list.push(encodeTask(t), t.id);
const text = (list: EncodedList) => decoder.decode(joinParts(list.read().body()));

test("holds exactly the JSON array of its tasks, keys in order, empty or not", () => {
  const list = new EncodedList("a");
  expect(text(list)).toBe("[]");
  expect(list.usage).toEqual({ tasks: 0, bytes: 2 });
  const tasks = [task(1, "a"), task(2, 'quote " and \\ and é and 🎉'), task(7, "")];
  for (const t of tasks) push(list, t);
  expect(text(list)).toBe(JSON.stringify(tasks));
  expect(list.read().usage).toEqual({ tasks: 3, bytes: encoder.encode(JSON.stringify(tasks)).byteLength });
  expect(list.lastId).toBe(7);
});

test("a version is named by the list's instance and its count, and is the same object until the list changes", () => {
  const list = new EncodedList("abc", [task(1, "one")]);
  const first = list.read();
  expect(first.version).toBe("abc-1");
  expect(list.read()).toBe(first);
  push(list, task(2, "two"));
  expect(list.read().version).toBe("abc-2");
  expect(first.version).toBe("abc-1");
});

test("takes a task as its JSON text while it fits the limits, counting a comma after the first, and refused changes nothing", () => {
  const first = task(1, "é");
  const second = task(2, "b");
  const bytesOf = (t: Task) => encodeTask(t).byteLength;
  const fitting = 2 + bytesOf(first) + 1 + bytesOf(second);
  const list = new EncodedList("a");
  const limits = { maxTasks: 10, maxBytes: fitting, maxKeys: 0 };
  expect(list.pushText(JSON.stringify(first), 1, limits)).toBeUndefined();
  expect(list.pushText(JSON.stringify(task(2, "bb")), 2, limits)).toBe("bytes");
  expect(list.pushText(JSON.stringify(second), 2, { ...limits, maxTasks: 1 })).toBe("tasks");
  expect(text(list)).toBe(JSON.stringify([first]));
  expect(list.pushText(JSON.stringify(second), 2, limits)).toBeUndefined();
  expect(text(list)).toBe(JSON.stringify([first, second]));
  expect(list.usage).toEqual({ tasks: 2, bytes: fitting });
  expect(list.read().body().byteLength).toBe(fitting);
});

test("takes tasks as text across page ends, whatever their characters", () => {
  const list = new EncodedList("a");
  const limits = { maxTasks: 1_000_000, maxBytes: 1 << 30, maxKeys: 0 };
  const tasks = Array.from({ length: 3000 }, (_, i) => task(i + 1, `${"é🎉x".repeat(i % 97)} ${i}`));
  for (const t of tasks) expect(list.pushText(JSON.stringify(t), t.id, limits)).toBeUndefined();
  const body = list.read().body();
  expect(body.parts.length).toBeGreaterThan(1);
  expect(decoder.decode(joinParts(body)) === JSON.stringify(tasks)).toBe(true);
  expect(body.byteLength).toBe(list.usage.bytes);
  expect([...list.read().tasksAfter(2990)].map((t) => decoder.decode(t.json))).toEqual(
    tasks.slice(2990).map((t) => JSON.stringify(t)),
  );
});

test.each([
  { ids: "one after another", list: [1, 2, 3, 4, 5] },
  { ids: "with gaps", list: [2, 3, 7, 8, 20] },
])("serves the tasks after any id, as a JSON array and one by one, with ids $ids", ({ list: ids }) => {
  const tasks = ids.map((id) => task(id, `task ${id}`));
  const version = new EncodedList("a", tasks).read();
  for (let after = -1; after <= 22; after++) {
    const expected = tasks.filter((t) => t.id > after);
    expect(decoder.decode(joinParts(version.after(after)))).toBe(JSON.stringify(expected));
    const oneByOne = [...version.tasksAfter(after)];
    expect(oneByOne.map((t) => t.id)).toEqual(expected.map((t) => t.id));
    expect(oneByOne.map((t) => decoder.decode(t.json))).toEqual(expected.map((t) => JSON.stringify(t)));
  }
});

test("keeps its bytes exact while it grows over many pages, and a task is always one view", () => {
  const list = new EncodedList("a");
  // 80 tasks of 256 KiB: about 20 MiB, over twenty pages.
  const title = "x".repeat(256 * 1024 + 7);
  const tasks = Array.from({ length: 80 }, (_, i) => task(i + 1, title));
  for (const t of tasks) push(list, t);
  const version = list.read();
  const body = version.body();
  expect(body.parts.length).toBeGreaterThan(20);
  expect(body.byteLength).toBe(list.usage.bytes);
  expect(decoder.decode(joinParts(body)) === JSON.stringify(tasks)).toBe(true);
  const after = version.after(40);
  expect(decoder.decode(joinParts(after)) === JSON.stringify(tasks.slice(40))).toBe(true);
  expect([...version.tasksAfter(78)].map((t) => decoder.decode(t.json))).toEqual(
    tasks.slice(78).map((t) => JSON.stringify(t)),
  );
});

test("never changes a version it handed out, short or long, however many tasks come after", () => {
  const list = new EncodedList("a", [task(1, "first")]);
  const kept = [];
  for (let id = 2; id <= 10_000; id++) {
    if (id % 2000 === 0) {
      const version = list.read();
      kept.push({ version, body: joinParts(version.body()), after: joinParts(version.after(id - 5)) });
    }
    push(list, task(id, `task ${id}`));
  }
  expect(kept.at(-1)?.version.body().parts.length).toBeGreaterThan(1);
  for (const { version, body, after } of kept) {
    expect(joinParts(version.body())).toEqual(body);
    expect(joinParts(version.after(version.lastId - 4))).toEqual(after);
  }
});

test("a long list is in memory once: bodies of different versions share its pages", () => {
  const list = new EncodedList("a");
  for (let id = 1; id <= 8000; id++) push(list, task(id, `task number ${id}`));
  const before = list.read().body();
  push(list, task(8001, "one more"));
  const after = list.read().body();
  expect(after.parts[0]).toBe(before.parts[0]);
  expect(after.parts[0]?.buffer).toBe(before.parts[0]?.buffer);
});

test("edits and deletions in a long list touch one chunk each: versions handed out keep their bytes, and the events follow", () => {
  const list = new EncodedList("a");
  const model = new Map<number, Task>();
  for (let id = 1; id <= 20_000; id++) {
    const t = task(id, `task number ${id}`);
    push(list, t);
    model.set(id, t);
  }
  const before = list.read();
  const beforeBody = joinParts(before.body());
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let step = 0; step < 3000; step++) {
    const id = (next() % 20_000) + 1;
    const held = model.get(id);
    if (held === undefined) continue;
    if (next() % 4 === 0) {
      expect(list.remove(id)).toBe(true);
      model.delete(id);
    } else {
      const edited = { ...held, title: `${held.title} edited ${step}` };
      expect(list.replace(id, encodeTask(edited))).toBe(true);
      model.set(id, edited);
    }
  }
  const after = list.read();
  expect(joinParts(before.body())).toEqual(beforeBody);
  const expected = [...model.values()].sort((a, b) => a.id - b.id);
  expect(decoder.decode(joinParts(after.body()))).toBe(JSON.stringify(expected));
  expect(after.usage).toEqual({ tasks: expected.length, bytes: utf8(JSON.stringify(expected)).byteLength });
  const fromEvents = new Map<number, string>();
  for (const event of after.eventsAfter(0).events) fromEvents.set(event.id, decoder.decode(event.json));
  expect(fromEvents.size).toBe(expected.length);
  const fromMiddle = new Map([...before.tasksAfter(0)].map((t) => [t.id, decoder.decode(t.json)]));
  for (const event of after.eventsAfter(before.change).events) {
    if (event.event === "delete") fromMiddle.delete(event.id);
    else fromMiddle.set(event.id, decoder.decode(event.json));
  }
  expect(`[${[...fromMiddle.values()].join(",")}]`).toBe(JSON.stringify(expected));
});

test("remembers the last 10,000 deletions: a cursor older than one it forgot is reset, a later one is not", () => {
  const list = new EncodedList("a");
  for (let id = 1; id <= 10_100; id++) push(list, task(id, `t${id}`));
  for (let id = 1; id <= 10_050; id++) list.remove(id);
  const version = list.read();
  // Deletion n was change 10,100 + n: the first 50 are forgotten.
  expect(version.eventsAfter(10_149).reset).toBe(true);
  const { reset, events } = version.eventsAfter(10_150);
  expect(reset).toBe(false);
  const all = [...events];
  expect(all).toHaveLength(10_000);
  expect(all[0]).toMatchObject({ event: "delete", id: 51, change: 10_151 });
  expect(version.eventsAfter(0).reset).toBe(false);
  expect([...version.eventsAfter(0).events].map((event) => event.id)).toEqual(
    Array.from({ length: 50 }, (_, i) => 10_051 + i),
  );
});

test("keeps every recent change with the task as that change left it, several of one task included, and versions keep theirs", () => {
  const list = new EncodedList("j", [task(1, "one"), task(2, "two")]);
  list.replace(1, encodeTask({ id: 1, title: "first edit", completed: false }));
  const early = list.read();
  list.replace(1, encodeTask({ id: 1, title: "second edit", completed: true }));
  list.remove(2);
  push(list, task(3, "three"));
  const changes = list.read().changesAfter(2) ?? [];
  expect(changes.map((change) => [change.change, change.event, change.id, decoder.decode(change.json)])).toEqual([
    [3, "update", 1, '{"id":1,"title":"first edit","completed":false}'],
    [4, "update", 1, '{"id":1,"title":"second edit","completed":true}'],
    [5, "delete", 2, '{"id":2}'],
    [6, "task", 3, '{"id":3,"title":"three","completed":false}'],
  ]);
  expect(list.read().bytesChangedAfter(4)).toBe(changes.slice(2).reduce((sum, c) => sum + c.json.byteLength, 0));
  expect(early.changesAfter(2)?.map((change) => change.change)).toEqual([3]);
  expect(list.read().changesAfter(7)).toBeUndefined();
});

test("says its last change as the event a version would give for it, after an edit, a deletion and an addition", () => {
  const list = new EncodedList("l", [task(1, "one"), task(2, "two")]);
  const writes = [
    () => list.replace(1, encodeTask({ id: 1, title: "edited", completed: true })),
    () => list.remove(2),
    () => push(list, task(3, "three")),
  ];
  for (const write of writes) {
    const before = list.change;
    write();
    expect(list.lastChange).toEqual(list.read().changesAfter(before)?.[0]);
    expect(list.lastChange?.change).toBe(before + 1);
  }
});

test("forgets the oldest changes past 20,000 of them or 2 MiB of bytes: a cursor before them finds none, not a gap", () => {
  const list = new EncodedList("k", [task(1, "one")]);
  for (let i = 0; i < 20_500; i++) list.replace(1, encodeTask({ id: 1, title: `edit ${i}`, completed: false }));
  const version = list.read();
  expect(version.changesAfter(1)).toBeUndefined();
  expect(version.bytesChangedAfter(1)).toBe(Number.POSITIVE_INFINITY);
  const kept = version.changesAfter(version.change - 20_000) ?? [];
  expect(kept.length).toBe(20_000);
  expect(kept.every((change, i) => change.change === version.change - 20_000 + 1 + i)).toBe(true);
  const big = new EncodedList("m", [task(1, "one")]);
  for (let i = 0; i < 40; i++)
    big.replace(1, encodeTask({ id: 1, title: `${i}`.padEnd(100_000, "x"), completed: false }));
  const bigVersion = big.read();
  expect(bigVersion.changesAfter(bigVersion.change - 20)?.length).toBe(20);
  expect(bigVersion.changesAfter(bigVersion.change - 30)).toBeUndefined();
});
