// Many lists in one PostgreSQL schema, shared by processes: a list one makes, another reads, writes
// and follows; a deletion reaches the other's subscribers; creations race to one 201; a deletion cut
// short leaves nothing to the name made again; a list's write never waits on another list's row;
// and the list of version 1 becomes `default`.
import type postgres from "postgres";
import { afterAll, describe, expect, inject, test } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { encodeTask } from "../../src/list/stored-list.ts";
import { INITIAL_TASKS, taskJson } from "../../src/list/task.ts";
import { migration, SCHEMA_VERSION } from "../../src/store/postgres/migrations.ts";
import { addTask, createList, sendJson } from "../unit/list-requests.ts";
import { processStore } from "./process-store.ts";
import { asOperator } from "./servers.ts";

const { url } = inject("postgres");
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/** The app of one server process on the lists in `schema`, opened. */
async function processApp(schema: string): Promise<TaskApp> {
  const { lists, sql } = processStore(url, schema);
  pools.push(sql);
  await lists.open();
  return createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
}

/** Reads an event stream until `until` holds of what came, or it ends; returns what came. */
async function readStream(res: Response, until: (text: string) => boolean): Promise<string> {
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("An event stream must have a body");
  const decoder = new TextDecoder();
  let received = "";
  while (!until(received)) {
    const { done, value } = await reader.read();
    if (done) break;
    received += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return received;
}

describe("lists in one PostgreSQL schema, shared by two processes", () => {
  test("a list one process creates, the other reads, writes and follows", async () => {
    const [one, two] = await Promise.all([processApp("many_shared"), processApp("many_shared")]);
    await createList(one, "groceries", "Groceries");
    expect(await (await two.request("/lists")).text()).toBe(
      '[{"name":"default","title":"Tasks"},{"name":"groceries","title":"Groceries"}]',
    );
    expect(await (await two.request("/lists/groceries")).text()).toBe('{"name":"groceries","title":"Groceries"}');
    expect(await (await two.request("/lists/groceries/tasks")).text()).toBe("[]");
    const events = await two.request("/lists/groceries/tasks/events");
    expect(events.status).toBe(200);
    expect(await addTask(one, "groceries", "Milk")).toBe(1);
    const followed = await readStream(events, (text) => text.includes("Milk"));
    expect(followed).toContain('id: 1\nevent: task\ndata: {"id":1,"title":"Milk","completed":false}');
    expect(await addTask(two, "groceries", "Bread")).toBe(2);
    expect(await (await one.request("/lists/groceries/tasks")).text()).toBe(
      '[{"id":1,"title":"Milk","completed":false},{"id":2,"title":"Bread","completed":false}]',
    );
    // The default list is apart: its ids and tasks are its own.
    expect(await addTask(two, "default", "Elsewhere")).toBe(3);
    await sendJson(one, "PATCH", "/lists/groceries", { title: "Food" });
    expect(await (await two.request("/lists/groceries")).text()).toBe('{"name":"groceries","title":"Food"}');
    expect((await one.request("/lists")).headers.get("ETag")).toBe((await two.request("/lists")).headers.get("ETag"));
  });

  test("a deletion by one process reaches the other's subscribers as gone, and its writes answer 410", async () => {
    const [one, two] = await Promise.all([processApp("many_deleted"), processApp("many_deleted")]);
    await createList(one, "trip");
    await addTask(one, "trip", "Before");
    const events = await two.request("/lists/trip/tasks/events");
    await readStream(events, (text) => text.includes("Before"));
    expect((await one.request("/lists/trip", { method: "DELETE" })).status).toBe(204);
    const rest = await readStream(events, () => false);
    expect(rest.endsWith("event: gone\ndata: {}\n\n")).toBe(true);
    expect((await two.request("/lists/trip/tasks")).status).toBe(410);
    expect((await sendJson(two, "POST", "/lists/trip/tasks", { title: "After", completed: false })).status).toBe(410);
    // Made again by the other process, it continues its ids.
    await createList(two, "trip");
    expect(await addTask(one, "trip", "Again")).toBe(2);
  });

  test("of PUTs with If-None-Match: * of one name from two processes at once, exactly one answers 201", async () => {
    const [one, two] = await Promise.all([processApp("many_race"), processApp("many_race")]);
    for (let round = 0; round < 5; round++) {
      const name = `race-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          sendJson(i % 2 === 0 ? one : two, "PUT", `/lists/${name}`, { title: `Racer ${i}` }, { "If-None-Match": "*" }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([201, ...Array(9).fill(412)]);
    }
  });

  test("a list whose deletion stopped before its tasks were cleared, made again, holds none of them", async () => {
    const schema = "many_cut_deletion";
    const app = await processApp(schema);
    await createList(app, "cut");
    await addTask(app, "cut", "Old one");
    await addTask(app, "cut", "Old two");
    // What a deletion's first statement leaves when its process stops before the second.
    await asOperator(url, (sql) =>
      sql
        .unsafe(`UPDATE ${schema}.directory SET change = change + 1, live_lists = live_lists - 1;
        UPDATE ${schema}.lists SET live = false, task_count = 0, json_bytes = 2 WHERE name = 'cut'`)
        .simple(),
    );
    expect((await app.request("/lists/cut/tasks")).status).toBe(410);
    await createList(app, "cut");
    expect(await (await app.request("/lists/cut/tasks")).text()).toBe("[]");
    expect(await addTask(app, "cut", "New")).toBe(3);
    expect(await (await app.request("/lists/cut/tasks")).text()).toBe('[{"id":3,"title":"New","completed":false}]');
  });

  test("a write to one list never waits for another list's row, held locked by a transaction", async () => {
    const app = await processApp("many_apart");
    await createList(app, "held");
    await createList(app, "free");
    let release = () => {};
    const released = new Promise<void>((done) => {
      release = done;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((done) => {
      locked = done;
    });
    const holding = asOperator(url, (sql) =>
      sql.begin(async (tx) => {
        await tx.unsafe("SELECT FROM many_apart.lists WHERE name = 'held' FOR UPDATE");
        locked();
        await released;
      }),
    );
    await isLocked;
    let heldDone = false;
    const waiting = addTask(app, "held", "Waits").then((id) => {
      heldDone = true;
      return id;
    });
    expect(await addTask(app, "free", "Goes")).toBe(1);
    expect(await addTask(app, "default", "Goes too")).toBe(3);
    expect((await sendJson(app, "PATCH", "/lists/free/tasks/1", { completed: true })).status).toBe(200);
    expect(heldDone).toBe(false);
    release();
    await holding;
    expect(await waiting).toBe(1);
  });
});

test("a schema of version 1 becomes the default list of version 2, then is brought up to date, keeping its tasks, ETags, change numbers and keys", async () => {
  const schema = "many_from_v1";
  const instance = "0123456789abcdef";
  const [first, second] = INITIAL_TASKS;
  if (first === undefined || second === undefined) throw new Error("The list starts with two tasks");
  const firstBytes = encodeTask(first).byteLength;
  const keyed = taskJson(second);
  await asOperator(url, async (sql) => {
    await sql.unsafe(migration(schema, 1, instance));
    // What version 1's functions left: task 1 deleted by change 3, task 2 added under a key.
    await sql
      .unsafe(`DELETE FROM ${schema}.tasks WHERE id = 1;
      INSERT INTO ${schema}.deletions (change, id) VALUES (3, 1);
      UPDATE ${schema}.list SET change_number = 3, task_count = 1, json_bytes = json_bytes - ${firstBytes + 1};
      INSERT INTO ${schema}.idempotency_keys (scope, key, fingerprint, task_id, task_json)
        VALUES ('scope', 'kept-key', 'fingerprint', 2, '${keyed}');
      INSERT INTO ${schema}.idempotency_scopes (scope, keys) VALUES ('scope', 1)`)
      .simple();
  });
  const { lists, sql } = processStore(url, schema);
  pools.push(sql);
  await lists.open();
  const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
  const read = await app.request("/tasks");
  expect(read.headers.get("ETag")).toBe(`"${instance}-3"`);
  expect(await read.text()).toBe(`[${keyed}]`);
  expect((await app.request("/tasks/2")).headers.get("ETag")).toBe(`"${instance}-2-2"`);
  expect((await app.request("/tasks/1")).status).toBe(410);
  expect(await (await app.request("/lists")).text()).toBe('[{"name":"default","title":"Tasks"}]');
  const store = lists.list("default");
  const replayed = await store.append({ title: second.title, completed: second.completed }, LIMITS, {
    scope: "scope",
    key: "kept-key",
    fingerprint: "fingerprint",
  });
  expect(replayed).toMatchObject({ outcome: "replayed", json: keyed });
  const added = await sendJson(app, "POST", "/tasks", { title: "After", completed: false });
  expect(((await added.json()) as { id: number }).id).toBe(3);
  expect((await app.request("/tasks")).headers.get("ETag")).toBe(`"${instance}-4"`);
  const [row] = await asOperator(url, (admin) => admin.unsafe(`SELECT version FROM ${schema}.schema_version`));
  expect(row?.version).toBe(SCHEMA_VERSION);
});

const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };

test("a process that reads more lists than its copies' bound keeps them under it, and reads each right", async () => {
  const maxCopyBytes = 64 * 1024;
  const { lists, sql } = processStore(url, "many_bounded", 2, { maxCopyBytes });
  pools.push(sql);
  await lists.open();
  const app = createApp({ lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });
  const title = "x".repeat(1000);
  for (let i = 0; i < 10; i++) {
    await createList(app, `bounded-${i}`);
    for (let t = 0; t < 10; t++) await addTask(app, `bounded-${i}`, `${title} ${i}`);
  }
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 10; i++) {
      const tasks = (await (await app.request(`/lists/bounded-${i}/tasks`)).json()) as { title: string }[];
      expect(tasks.map((task) => task.title)).toEqual(Array(10).fill(`${title} ${i}`));
      expect(lists.copies.bytes).toBeLessThanOrEqual(maxCopyBytes);
    }
  }
  expect(lists.copies.size).toBeLessThan(10);
});
