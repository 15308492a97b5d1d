import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { HeldTaskStore } from "../../src/engine/held-lists.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import type { IdempotencyKey, TaskStore } from "../../src/engine/task-store.ts";
import type { ListVersion } from "../../src/list/list-version.ts";
import type { SqliteFileConnection } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { sqliteDefaultList } from "./helpers.ts";

const decoder = new TextDecoder();
const LIMITS = { maxTasks: 1_000, maxBytes: 1024 * 1024, maxKeys: 100 };
const KEY: IdempotencyKey = { scope: "", key: "k1", fingerprint: "f1" };

const dirs: string[] = [];
const connections: SqliteFileConnection[] = [];
afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A SQLite file store on a new file; `reopen` closes it and opens the same file again, as a restart does. */
function sqliteStore(): { store: HeldTaskStore; reopen: () => HeldTaskStore } {
  const dir = mkdtempSync(join(tmpdir(), "task-list-changes-"));
  dirs.push(dir);
  const path = join(dir, "tasks.db");
  const open = () => {
    const connection = openNodeSqlite(path);
    connections.push(connection);
    return sqliteDefaultList(connection);
  };
  return {
    store: open(),
    reopen: () => {
      for (const connection of connections.splice(0)) connection.close();
      return open();
    },
  };
}

const STORES: readonly { name: string; make: () => TaskStore }[] = [
  { name: "memory", make: () => new MemoryStore() },
  { name: "SQLite file", make: () => sqliteStore().store },
];

async function tasksOf(store: TaskStore): Promise<unknown[]> {
  const list = (await store.read()).version;
  return JSON.parse(
    list
      .body()
      .parts.map((part) => decoder.decode(part))
      .join(""),
  ) as unknown[];
}

/** The events a subscriber at `cursor` is sent, as `event id json` lines, with `reset` first when it is reset. */
function eventsOf(list: ListVersion, cursor: number): string[] {
  const { reset, events } = list.eventsAfter(cursor);
  return [
    ...(reset ? ["reset"] : []),
    ...[...events].map((event) => `${event.event} ${event.change} ${decoder.decode(event.json)}`),
  ];
}

describe.each(STORES)("a $name store", ({ make }) => {
  test("an edit changes the task, its version and the list's, and counts one change; a patch that changes nothing is no change", async () => {
    const store = make();
    const before = (await store.read()).version;
    expect(before.change).toBe(2);
    const task = before.task(1);
    if (task.outcome !== "found") throw new Error("task 1 must be found");
    const updated = await store.update(1, { title: "Renamed" }, LIMITS);
    expect(updated).toMatchObject({
      outcome: "updated",
      task: { id: 1, title: "Renamed", completed: true },
      json: '{"id":1,"title":"Renamed","completed":true}',
    });
    const after = (await store.read()).version;
    expect(after.change).toBe(3);
    expect(after.version).not.toBe(before.version);
    const read = after.task(1);
    expect(read).toMatchObject({ outcome: "found", version: (updated as { version: string }).version });
    expect((read as { version: string }).version).not.toBe(task.version);
    expect(await tasksOf(store)).toEqual([
      { id: 1, title: "Renamed", completed: true },
      { id: 2, title: "Build the task list service", completed: false },
    ]);
    expect(await store.update(1, { title: "Renamed", completed: true }, LIMITS)).toMatchObject({
      outcome: "unchanged",
      version: (read as { version: string }).version,
    });
    expect((await store.read()).version.version).toBe(after.version);
  });

  test("a deleted task is gone, a never given id is not found, and an id is never given twice", async () => {
    const store = make();
    expect(await store.remove(2)).toMatchObject({ outcome: "deleted", usage: { tasks: 1 } });
    expect(await store.remove(1)).toMatchObject({ outcome: "deleted", usage: { tasks: 0, bytes: 2 } });
    const list = (await store.read()).version;
    expect(list.task(2)).toEqual({ outcome: "gone" });
    expect(list.task(3)).toEqual({ outcome: "not-found" });
    expect(await store.remove(2)).toMatchObject({ outcome: "gone" });
    expect(await store.update(7, { completed: true }, LIMITS)).toMatchObject({ outcome: "not-found" });
    expect(await store.append({ title: "Next", completed: false }, LIMITS)).toMatchObject({ task: { id: 3 } });
    expect((await store.read()).version.change).toBe(5);
  });

  test("If-Match naming another version changes nothing; of two writes with the same If-Match, one wins", async () => {
    const store = make();
    const first = (await store.read()).version.task(1) as { version: string };
    expect(await store.update(1, { completed: false }, LIMITS, ["nope"])).toMatchObject({
      outcome: "precondition-failed",
    });
    const results = await Promise.all([
      store.update(1, { title: "One" }, LIMITS, [first.version]),
      store.update(1, { title: "Two" }, LIMITS, [first.version]),
      store.remove(1, [first.version]),
    ]);
    expect(results.map((result) => result.outcome).sort()).toEqual([
      "precondition-failed",
      "precondition-failed",
      "updated",
    ]);
  });

  test("a longer title that would take the list past MAX_LIST_BYTES is refused; a deletion frees room", async () => {
    const store = make();
    const { bytes } = (await store.read()).version.usage;
    const tight = { ...LIMITS, maxTasks: 2, maxBytes: bytes + 3 };
    expect(await store.update(2, { title: "Build the task list service!!!!" }, tight)).toMatchObject({
      outcome: "full",
      limit: "bytes",
    });
    expect(await store.append({ title: "x", completed: false }, tight)).toMatchObject({ outcome: "full" });
    await store.remove(1);
    expect(await store.append({ title: "x", completed: false }, tight)).toMatchObject({ outcome: "added" });
  });

  test("an Idempotency-Key replays the task as first returned, after it was edited and after it was deleted", async () => {
    const store = make();
    const added = await store.append({ title: "Once", completed: false }, LIMITS, KEY);
    await store.update(3, { title: "Edited" }, LIMITS);
    expect(await store.append({ title: "Once", completed: false }, LIMITS, KEY)).toMatchObject({
      outcome: "replayed",
      json: (added as { json: string }).json,
    });
    await store.remove(3);
    expect(await store.append({ title: "Once", completed: false }, LIMITS, KEY)).toMatchObject({
      outcome: "replayed",
      json: (added as { json: string }).json,
    });
  });

  test("a subscriber is brought up to date with one event per task in change order, and reset past the end", async () => {
    const store = make();
    await store.append({ title: "Three", completed: false }, LIMITS);
    await store.update(1, { completed: false }, LIMITS);
    await store.remove(2);
    await store.append({ title: "Four", completed: true }, LIMITS);
    await store.update(3, { title: "Three!" }, LIMITS);
    const list = (await store.read()).version;
    expect(list.change).toBe(7);
    expect(eventsOf(list, 2)).toEqual([
      'update 4 {"id":1,"title":"Read the task list specification","completed":false}',
      'delete 5 {"id":2}',
      'task 6 {"id":4,"title":"Four","completed":true}',
      'task 7 {"id":3,"title":"Three!","completed":false}',
    ]);
    expect(eventsOf(list, 5)).toEqual([
      'task 6 {"id":4,"title":"Four","completed":true}',
      'update 7 {"id":3,"title":"Three!","completed":false}',
    ]);
    expect(eventsOf(list, 7)).toEqual([]);
    expect(eventsOf(list, 0)).toEqual(eventsOf(list, 0).filter((line) => !line.startsWith("delete")));
    expect(eventsOf(list, 8)).toEqual(["reset", ...eventsOf(list, 0)]);
  });
});

describe("a SQLite file store reopened", () => {
  test("keeps change numbers, versions, deletions and the highest id given", async () => {
    const { store, reopen } = sqliteStore();
    await store.append({ title: "Three", completed: false }, LIMITS);
    await store.update(1, { title: "Renamed" }, LIMITS);
    await store.remove(3);
    const before = store.read().version;
    const again = reopen();
    const after = again.read().version;
    expect(after.version).toBe(before.version);
    expect(after.task(1)).toEqual(before.task(1));
    expect(after.task(3)).toEqual({ outcome: "gone" });
    expect(eventsOf(after, 2)).toEqual(eventsOf(before, 2));
    expect(await again.append({ title: "Four", completed: false }, LIMITS)).toMatchObject({ task: { id: 4 } });
  });
});
