import { describe, expect, inject, test } from "vitest";
import { ConfigError } from "../../src/errors.ts";
import type { ListVersion } from "../../src/list/list-version.ts";
import { openPostgresStore } from "../../src/store/postgres/server-pool.ts";
import { storeOpener } from "./process-store.ts";
import { asOperator } from "./servers.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const KEY = { scope: "", key: "k", fingerprint: "f" };
const decoder = new TextDecoder();
/** A store as one server process would make it: a pool of its own on the list in `schema`. */
const storeOn = storeOpener(url);

function body(list: ListVersion): string {
  return list
    .body()
    .parts.map((part) => decoder.decode(part))
    .join("");
}

/** What a subscriber at `cursor` holds once it applied the events after it, as a JSON array. */
function applied(list: ListVersion, held: Map<number, string>, cursor: number): string {
  const tasks = new Map(held);
  const { reset, events } = list.eventsAfter(cursor);
  if (reset) tasks.clear();
  for (const event of events) {
    if (event.event === "delete") tasks.delete(event.id);
    else tasks.set(event.id, decoder.decode(event.json));
  }
  return `[${[...tasks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, json]) => json)
    .join(",")}]`;
}

describe("tasks that change, on a PostgreSQL list shared by two processes", () => {
  test("an edit or a deletion made by one process is read by the other, under the same versions", async () => {
    const one = await storeOn("changes_shared");
    const two = await storeOn("changes_shared");
    const start = (await two.read()).version;
    const held = new Map([...start.tasksAfter(0)].map((task) => [task.id, decoder.decode(task.json)]));
    expect(await one.update(1, { title: "Renamed" }, LIMITS)).toMatchObject({
      outcome: "updated",
      json: '{"id":1,"title":"Renamed","completed":true}',
    });
    expect(await one.remove(2)).toMatchObject({ outcome: "deleted", usage: { tasks: 1 } });
    expect(await one.append({ title: "Third", completed: false }, LIMITS)).toMatchObject({ task: { id: 3 } });
    const [a, b] = [(await one.read()).version, (await two.read()).version];
    expect(b.version).toBe(a.version);
    expect(b.change).toBe(5);
    expect(body(b)).toBe('[{"id":1,"title":"Renamed","completed":true},{"id":3,"title":"Third","completed":false}]');
    expect(b.task(1)).toEqual(a.task(1));
    expect(b.task(2)).toEqual({ outcome: "gone" });
    expect(b.task(9)).toEqual({ outcome: "not-found" });
    expect(applied(b, held, start.change)).toBe(body(b));
    expect(applied(b, new Map(), 0)).toBe(body(b));
    expect(applied(b, new Map([[7, "{}"]]), 99)).toBe(body(b));
  });

  test("of two writes with the same If-Match from two processes, one applies and the other is refused", async () => {
    const one = await storeOn("changes_if_match");
    const two = await storeOn("changes_if_match");
    const found = (await one.read()).version.task(2);
    if (found.outcome !== "found") throw new Error("task 2 must be found");
    const results = await Promise.all([
      one.update(2, { completed: true }, LIMITS, [found.version]),
      two.update(2, { title: "Other" }, LIMITS, [found.version]),
      two.remove(2, [found.version]),
    ]);
    // Whichever commits first applies: after an edit the others name an old version (412); after
    // the deletion they find the task gone, which is checked before If-Match (410).
    const outcomes = results.map((result) => result.outcome).sort();
    const deleted = outcomes.includes("deleted");
    expect(outcomes).toEqual(
      deleted ? ["deleted", "gone", "gone"] : ["precondition-failed", "precondition-failed", "updated"],
    );
    expect(await one.update(2, {}, LIMITS)).toMatchObject({ outcome: deleted ? "gone" : "unchanged" });
    expect((await one.read()).version.change).toBe(3);
  });

  test("a title too long for MAX_LIST_BYTES is refused, a deletion frees room, and ids are never given twice", async () => {
    const store = await storeOn("changes_limits");
    const { bytes } = (await store.read()).version.usage;
    const tight = { ...LIMITS, maxTasks: 2, maxBytes: bytes + 3 };
    expect(await store.update(1, { title: "x".repeat(100) }, tight)).toMatchObject({ outcome: "full", limit: "bytes" });
    await store.remove(1);
    await store.remove(2);
    expect(await store.append({ title: "After", completed: false }, tight)).toMatchObject({ task: { id: 3 } });
  });

  test("an Idempotency-Key replays the task as first answered after it was edited and deleted", async () => {
    const store = await storeOn("changes_keys");
    const added = await store.append({ title: "Once", completed: false }, LIMITS, KEY);
    await store.update(3, { title: "Edited" }, LIMITS);
    await store.remove(3);
    expect(await store.append({ title: "Once", completed: false }, LIMITS, KEY)).toMatchObject({
      outcome: "replayed",
      json: (added as { json: string }).json,
    });
  });
});

describe("a PostgreSQL list made before numbered migrations", () => {
  test("stops the start with one line naming DATABASE_SCHEMA and saying what to do, and stays as it was", async () => {
    await asOperator(url, (sql) =>
      sql.unsafe(`
        CREATE SCHEMA changes_legacy;
        CREATE TABLE changes_legacy.tasks (id integer PRIMARY KEY, title_json text NOT NULL, completed boolean NOT NULL);
        CREATE TABLE changes_legacy.list (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
          instance text NOT NULL, task_count integer NOT NULL, last_id integer NOT NULL, json_bytes bigint NOT NULL);
        INSERT INTO changes_legacy.tasks VALUES (1, '"one"', false), (2, '"two"', true), (4, '"four"', false);
        INSERT INTO changes_legacy.list (instance, task_count, last_id, json_bytes) VALUES ('legacy', 3, 4, 124);
      `),
    );
    const start = openPostgresStore({ url, schema: "changes_legacy", poolSize: 1 });
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(
      /^DATABASE_SCHEMA changes_legacy holds a task list made before numbered migrations, which this version does not read: set DATABASE_SCHEMA to a new schema, or drop this one \(DROP SCHEMA changes_legacy CASCADE\) to start the list again$/,
    );
    const [held] = await asOperator(url, (sql) =>
      sql.unsafe(`SELECT (SELECT count(*) FROM changes_legacy.tasks)::int AS tasks,
        to_regclass('changes_legacy.schema_version') IS NULL AS unversioned`),
    );
    expect(held).toEqual({ tasks: 3, unversioned: true });
  });
});
