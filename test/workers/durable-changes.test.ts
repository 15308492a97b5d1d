import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import type { ListEvent, ListVersion } from "../../src/list/list-version.ts";
import type { TaskListObject } from "../../src/runtimes/durable-objects/task-list-object.ts";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import { madeList } from "./named-lists.ts";

const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const decoder = new TextDecoder();

const namespace = (): DurableObjectNamespace<TaskListObject> => {
  if (env.TASK_LIST === undefined) throw new Error("The durable environment must bind TASK_LIST");
  return env.TASK_LIST;
};

function body(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

describe("tasks that change, in the Durable Object", () => {
  test("an edit or a deletion made through one isolate is read by another under the same versions, and If-Match holds", async () => {
    const one = new DurableObjectStore(namespace());
    const two = new DurableObjectStore(namespace());
    const start = (await two.read()).version;
    const added = await one.append({ title: "To change", completed: false }, LIMITS);
    if (added.outcome !== "added") throw new Error(`the task must be added, got ${JSON.stringify(added)}`);
    const id = added.task.id;
    const found = (await one.read()).version.task(id);
    if (found.outcome !== "found") throw new Error("the task must be found");
    const [first, second] = await Promise.all([
      one.update(id, { title: "Changed \ud800" }, LIMITS, [found.version]),
      two.update(id, { completed: true }, LIMITS, [found.version]),
    ]);
    expect([first.outcome, second.outcome].sort()).toEqual(["precondition-failed", "updated"]);
    const [a, b] = [(await one.read()).version, (await two.read()).version];
    expect(b.version).toBe(a.version);
    expect(b.task(id)).toEqual(a.task(id));
    expect(await two.remove(id)).toMatchObject({ outcome: "deleted" });
    const after = (await one.read()).version;
    expect(after.task(id)).toEqual({ outcome: "gone" });
    expect(after.change).toBe(start.change + 3);
    const held = new Map([...start.tasksAfter(0)].map((task) => [task.id, decoder.decode(task.json)]));
    for (const event of after.eventsAfter(start.change).events) {
      if (event.event === "delete") held.delete(event.id);
      else held.set(event.id, decoder.decode(event.json));
    }
    expect(`[${[...held.values()].join(",")}]`).toBe(body(after));
  });
});

/**
 * Writes through `store` at once: 50 edits of one task, each with a title of its own, appends, and
 * edits and deletions of the tasks appended. Returns the edited task's id and the edits' titles.
 */
async function mixedWrites(store: DurableObjectStore): Promise<{ id: number; titles: string[] }> {
  const ids = await Promise.all(
    Array.from({ length: 7 }, async (_, at) => {
      const added = await store.append({ title: `Added ${at}`, completed: false }, LIMITS);
      return added.outcome === "added" ? added.task.id : 0;
    }),
  );
  const [id = 0, ...others] = ids;
  const titles = Array.from({ length: 50 }, (_, at) => `Edit ${at}`);
  await Promise.all([
    ...titles.map((title) => store.update(id, { title }, LIMITS)),
    ...others.map((other, at) =>
      at % 2 === 0 ? store.remove(other) : store.update(other, { completed: true }, LIMITS),
    ),
    ...Array.from({ length: 5 }, (_, at) => store.append({ title: `Later ${at}`, completed: true }, LIMITS)),
  ]);
  return { id, titles };
}

/**
 * Applies `changes` to the tasks of `start` as the contract tells a client to, checking that each
 * is the next change after `start`'s and that a `task` names a task not held and an `update` one
 * held; returns the list then held.
 */
function applied(start: ListVersion, changes: readonly ListEvent[]): string {
  const held = new Map([...start.tasksAfter(0)].map((task) => [task.id, decoder.decode(task.json)]));
  expect(changes.map((change) => change.change)).toEqual(changes.map((_, at) => start.change + 1 + at));
  for (const { event, id, json } of changes) {
    expect(held.has(id), `"${event}" of task ${id}`).toBe(event !== "task");
    if (event === "delete") held.delete(id);
    else held.set(id, decoder.decode(json));
  }
  return `[${[...held.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, json]) => json)
    .join(",")}]`;
}

describe("every change of the Durable Object's list", () => {
  test("an isolate that reads after many changes made through another, several of one task, gets every one of them, each once, in order, with the task as that change left it", async () => {
    const writer = await madeList("every-change", 2);
    const reader = new DurableObjectStore(namespace(), "every-change");
    const start = (await reader.read()).version;
    const { id, titles } = await mixedWrites(writer);
    const list = (await reader.read()).version;
    expect(list.version).toBe((await writer.read()).version.version);
    const changes = list.changesAfter(start.change) ?? [];
    expect(changes.at(-1)?.change).toBe(list.change);
    expect(applied(start, changes)).toBe(body(list));
    const renamed = changes.filter((change) => change.id === id && change.event === "update");
    expect(renamed.map((change) => JSON.parse(decoder.decode(change.json)).title).sort()).toEqual(titles.sort());
  });

  test("an isolate further behind than the journal's 2 MiB gets each task's last change, holds the list, and every change again from there", async () => {
    const stub = namespace().getByName("every-change-behind");
    const writer = await madeList("every-change-behind", 2);
    const reader = new DurableObjectStore(namespace(), "every-change-behind");
    const start = (await reader.read()).version;
    const big = (letter: string) => letter.repeat(1024 * 1024 + 512 * 1024);
    await writer.update(1, { title: big("a") }, LIMITS);
    await writer.update(2, { title: big("b") }, LIMITS);
    await writer.update(1, { title: big("c") }, LIMITS);
    // The first of them went: 2 MiB or more came after it.
    const { instance } = await stub.changes(undefined, 0);
    expect(await stub.changes(instance, start.change)).toMatchObject({ journal: false });
    const kept = await stub.changes(instance, start.change + 1);
    expect(kept.journal).toBe(true);
    expect(kept.rows.map((row) => row.change)).toEqual([start.change + 2, start.change + 3]);
    const list = (await reader.read()).version;
    expect(list.changesAfter(start.change)).toBeUndefined();
    const { reset, events } = list.eventsAfter(start.change);
    expect(reset).toBe(false);
    expect([...events].map((event) => [event.id, event.change])).toEqual([
      [2, start.change + 2],
      [1, start.change + 3],
    ]);
    expect(body(list)).toBe(body((await writer.read()).version));
    await writer.update(1, { title: "Small" }, LIMITS);
    await writer.remove(2);
    const again = (await reader.read()).version;
    expect(applied(list, again.changesAfter(list.change) ?? [])).toBe(body(again));
  });

  test("an object that woke again answers every change made since it woke, and each task's last change before", async () => {
    const stub = namespace().getByName("every-change-woken");
    const writer = await madeList("every-change-woken", 2);
    const reader = new DurableObjectStore(namespace(), "every-change-woken");
    await writer.update(1, { title: "Before the object slept" }, LIMITS);
    // Its journal is in its memory: after a sleep, it starts again from the list as it woke.
    await evictDurableObject(stub);
    const before = (await reader.read()).version;
    const { instance } = await stub.changes(undefined, 0);
    await writer.update(1, { title: "Edited once" }, LIMITS);
    await writer.update(1, { title: "Edited twice" }, LIMITS);
    const folded = await stub.changes(instance, before.change - 1);
    expect(folded).toMatchObject({ journal: false, rows: [{ id: 1, change: before.change + 2 }] });
    const every = await stub.changes(instance, before.change);
    expect(every).toMatchObject({
      journal: true,
      rows: [
        { id: 1, change: before.change + 1 },
        { id: 1, change: before.change + 2 },
      ],
    });
    await mixedWrites(writer);
    const list = (await reader.read()).version;
    expect(applied(before, list.changesAfter(before.change) ?? [])).toBe(body(list));
  });
});
