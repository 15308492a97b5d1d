import { describe, expect, inject, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import type { ListEvent, ListVersion } from "../../src/list/list-version.ts";
import type { PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { EVENT_TIMEOUT_MS, EventReader, type StreamEvent } from "../support/subscriber-readers.ts";
import { storeOpener } from "./process-store.ts";
import { asOperator } from "./servers.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const EDITS = 50;
const decoder = new TextDecoder();
const open = storeOpener(url);
/** A store as one server process would make it, told of other processes' changes by LISTEN. */
const listening = (schema: string) => open(schema);
/** A store that reads the list only when asked, as a Worker does between polls: it learns many changes at once. */
const polling = (schema: string) => open(schema, 60_000);

function body(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

function heldTasks(list: ListVersion): Map<number, string> {
  return new Map([...list.tasksAfter(0)].map((task) => [task.id, decoder.decode(task.json)]));
}

/** A change as a subscriber sees it. */
interface Seen {
  readonly change: number;
  readonly event: string;
  readonly id: number;
  readonly json: string;
}

/**
 * Applies `changes` to `held` as the contract tells a client to, checking that each is the next
 * change number and that a `task` names a task not held and an `update` one held; returns the list
 * then held as a JSON array.
 */
function applied(held: Map<number, string>, cursor: number, changes: readonly Seen[]): string {
  const tasks = new Map(held);
  expect(changes.map((change) => change.change)).toEqual(changes.map((_, at) => cursor + 1 + at));
  for (const { event, id, json } of changes) {
    if (event === "delete") {
      expect(tasks.has(id), `deletion of task ${id}`).toBe(true);
      tasks.delete(id);
    } else {
      expect(tasks.has(id), `"${event}" of task ${id}`).toBe(event === "update");
      tasks.set(id, json);
    }
  }
  return `[${[...tasks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, json]) => json)
    .join(",")}]`;
}

function seenOf(event: ListEvent): Seen {
  return { change: event.change, event: event.event, id: event.id, json: decoder.decode(event.json) };
}

function seenOfStream(event: StreamEvent): Seen {
  return {
    change: Number(event.id),
    event: event.event ?? "",
    id: (JSON.parse(event.data) as { id: number }).id,
    json: event.data,
  };
}

/**
 * Writes through `stores` at once: {@link EDITS} edits of task 1, each with a title of its own,
 * and appends, edits of the tasks appended and deletions among them. Returns the edits' titles.
 */
async function mixedWrites(stores: readonly PostgresStore[]): Promise<string[]> {
  const on = (at: number) => stores[at % stores.length] as PostgresStore;
  const titles = Array.from({ length: EDITS }, (_, at) => `Edit ${at}`);
  const added = await Promise.all(
    Array.from({ length: 6 }, (_, at) => on(at).append({ title: `Added ${at}`, completed: false }, LIMITS)),
  );
  const ids = added.map((result) => (result.outcome === "added" ? result.task.id : 0));
  await Promise.all([
    ...titles.map((title, at) => on(at).update(1, { title }, LIMITS)),
    ...ids.map((id, at) => (at % 2 === 0 ? on(at).remove(id) : on(at).update(id, { completed: true }, LIMITS))),
    ...Array.from({ length: 6 }, (_, at) =>
      on(at + 1).append({ title: `Later ${at}`, completed: at % 2 === 0 }, LIMITS),
    ),
    on(1).remove(2),
  ]);
  return titles;
}

describe("every change of a PostgreSQL list shared by processes", () => {
  test("a process that reads after many changes of another, several of one task, gets every one of them, each once, in order, with the task as that change left it", async () => {
    const writer = await listening("every_change_copy");
    const reader = await polling("every_change_copy");
    const start = (await reader.read()).version;
    const titles = await mixedWrites([writer]);
    const list = (await reader.read()).version;
    expect(list.version).toBe((await writer.read()).version.version);
    const changes = list.changesAfter(start.change)?.map(seenOf) ?? [];
    expect(changes.at(-1)?.change).toBe(list.change);
    expect(applied(heldTasks(start), start.change, changes)).toBe(body(list));
    const renamed = changes.filter((change) => change.id === 1).map((change) => JSON.parse(change.json).title);
    expect(renamed.sort()).toEqual([...titles].sort());
  });

  test("a subscriber of one process gets every change made through both at once, each once and in order, and holds the list", async () => {
    const one = await listening("every_change_follow");
    const two = await listening("every_change_follow");
    const app = createApp({ store: two, config: parseAppConfig({ LOG_LEVEL: "off" }) });
    const start = (await two.read()).version;
    const res = await app.request(`/tasks/events?after=${start.change}`);
    expect(res.status).toBe(200);
    if (res.body === null) throw new Error("An event stream must have a body");
    const events = new EventReader(res.body);
    const seen: Seen[] = [];
    const seenThrough = async (last: number) => {
      while ((seen.at(-1)?.change ?? 0) < last) {
        const event = await events.poll(EVENT_TIMEOUT_MS);
        if (event === undefined) throw new Error(`No event within ${EVENT_TIMEOUT_MS} ms after ${seen.length}`);
        seen.push(seenOfStream(event));
      }
    };
    try {
      // Its event says the subscriber is past its backlog: what comes after is sent change by change.
      await one.append({ title: "First", completed: false }, LIMITS);
      await seenThrough(start.change + 1);
      await mixedWrites([one, two]);
      await seenThrough((await one.read()).version.change);
      expect(applied(heldTasks(start), start.change, seen)).toBe(body((await one.read()).version));
    } finally {
      events.close();
    }
  });

  test("a process further behind than the journal's 2 MiB gets each task's last change, holds the list, and every change again from there", async () => {
    const schema = "every_change_behind";
    const writer = await listening(schema);
    const reader = await polling(schema);
    const start = (await reader.read()).version;
    const big = (letter: string) => letter.repeat(1024 * 1024 + 512 * 1024);
    await writer.update(1, { title: big("a") }, LIMITS);
    await writer.update(2, { title: big("b") }, LIMITS);
    await writer.update(1, { title: big("c") }, LIMITS);
    // The first of them went: 2 MiB or more came after it.
    const [kept] = await asOperator(url, (sql) => sql.unsafe(`SELECT count(*)::int AS rows FROM ${schema}.journal`));
    expect(kept?.rows).toBe(2);
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
    expect(applied(heldTasks(list), list.change, again.changesAfter(list.change)?.map(seenOf) ?? [])).toBe(body(again));
  });
});
