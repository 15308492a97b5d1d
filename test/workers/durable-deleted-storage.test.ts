// What a deleted list's Durable Object keeps: next to nothing, yet enough to answer 410 and to make
// the name again after the ids and change numbers it gave.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";
import { storageConnection } from "../../src/runtimes/durable-objects/object-storage.ts";
import { openSqliteDatabase, SqliteList } from "../../src/store/sqlite/sqlite-list.ts";
import { listObjects } from "./named-lists.ts";

/** What list `name`'s object stores: its SQLite's size, and the rows of each table but the platform's and SQLite's own. */
async function storedIn(name: string): Promise<{ bytes: number; rows: Record<string, number> }> {
  return runInDurableObject(listObjects().getByName(name), (_instance, state) => {
    const { sql } = state.storage;
    const tables = sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
      .toArray()
      .map((row) => String(row.name))
      .filter((table) => !table.startsWith("sqlite_"));
    const rows = Object.fromEntries(
      tables.map((table) => [table, Number(sql.exec(`SELECT count(*) AS n FROM "${table}"`).one().n)]),
    );
    return { bytes: sql.databaseSize, rows };
  });
}

function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(`http://example.com${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { "Content-Type": method === "PATCH" ? "application/merge-patch+json" : "application/json", ...headers },
  });
}

/** The change number a list's tasks are at, from the end of their `ETag`. */
async function changeOf(name: string): Promise<number> {
  const res = await send("GET", `/lists/${name}/tasks`);
  await res.body?.cancel();
  return Number((res.headers.get("ETag") ?? "").replaceAll('"', "").split("-").at(-1));
}

test("a deleted list's object keeps one small row, answers 410, and makes the name again after its ids and changes", async () => {
  const name = `freed-${crypto.randomUUID().slice(0, 8)}`;
  const never = await storedIn(`never-${crypto.randomUUID().slice(0, 8)}`);
  expect(never.rows).toEqual({});

  expect((await send("PUT", `/lists/${name}`, { title: "Short-lived" })).status).toBe(201);
  for (let i = 1; i <= 30; i++) {
    const added = await send(
      "POST",
      `/lists/${name}/tasks`,
      { title: `Task ${i} ${"x".repeat(200)}`, completed: false },
      {
        "Idempotency-Key": `add-${i}`,
      },
    );
    expect(added.status).toBe(200);
  }
  expect((await send("DELETE", `/lists/${name}/tasks/30`)).status).toBe(204);
  expect((await send("PATCH", `/lists/${name}/tasks/1`, { completed: true })).status).toBe(200);
  expect((await send("POST", `/lists/${name}/keys`, { access: "read", label: "Kept" })).status).toBe(201);
  const change = await changeOf(name);
  const live = await storedIn(name);
  expect(live.rows).toMatchObject({ tasks: 29, deletions: 1, idempotency_keys: 30, access_keys: 1 });

  expect((await send("DELETE", `/lists/${name}`)).status).toBe(204);
  await evictDurableObject(listObjects().getByName(name));
  const deleted = await storedIn(name);
  expect(Object.values(deleted.rows)).toEqual([1]);
  // A page or two past an object that stored nothing, where the live list's layout alone takes many.
  expect(deleted.bytes).toBeLessThanOrEqual(never.bytes + 8 * 1024);
  expect(deleted.bytes).toBeLessThan(live.bytes);

  for (const path of [`/lists/${name}`, `/lists/${name}/tasks`, `/lists/${name}/tasks/1`, `/lists/${name}/keys`]) {
    const res = await send("GET", path);
    expect(res.status, path).toBe(410);
    await res.body?.cancel();
  }
  const socket = await send("GET", `/lists/${name}/tasks/events`, undefined, { Upgrade: "websocket" });
  expect(socket.status).toBe(410);
  expect((await send("POST", `/lists/${name}/tasks`, { title: "Late", completed: false })).status).toBe(410);
  expect((await storedIn(name)).rows).toEqual(deleted.rows);

  expect((await send("PUT", `/lists/${name}`, { title: "Again" })).status).toBe(201);
  await evictDurableObject(listObjects().getByName(name));
  const next = await send("POST", `/lists/${name}/tasks`, { title: "After", completed: false });
  expect(await next.json()).toEqual({ id: 31, title: "After", completed: false });
  expect(await changeOf(name)).toBeGreaterThan(change + 1);
  expect((await send("GET", `/lists/${name}/keys`)).status).toBe(200);
  expect(await (await send("GET", `/lists/${name}/keys`)).json()).toEqual([]);
});

test("an object whose list an older release deleted, keeping its tables, frees them as it wakes", async () => {
  const name = `old-${crypto.randomUUID().slice(0, 8)}`;
  expect((await send("PUT", `/lists/${name}`, { title: "Old" })).status).toBe(201);
  for (let i = 1; i <= 3; i++) {
    expect((await send("POST", `/lists/${name}/tasks`, { title: `Task ${i}`, completed: false })).status).toBe(200);
  }
  const change = await changeOf(name);
  // As the releases before deleted a list: its rows went, its tables and its list's row stayed.
  await runInDurableObject(listObjects().getByName(name), (_instance, state) => {
    const db = storageConnection(state.storage);
    db.transaction(() => new SqliteList(db, name).delete());
  });
  await evictDurableObject(listObjects().getByName(name));
  expect((await send("GET", `/lists/${name}`)).status).toBe(410);
  expect(Object.values((await storedIn(name)).rows)).toEqual([1]);
  // The directory, which still lists it, deletes it too, as the object it reaches is already gone.
  expect((await send("DELETE", `/lists/${name}`)).status).toBe(204);
  expect((await send("PUT", `/lists/${name}`, { title: "Again" })).status).toBe(201);
  const next = await send("POST", `/lists/${name}/tasks`, { title: "After", completed: false });
  expect(await next.json()).toEqual({ id: 4, title: "After", completed: false });
  expect(await changeOf(name)).toBeGreaterThan(change + 1);
});

test("a name made again, its object reset once its tables were made but before its list was, is still gone, and made again after where it stopped", async () => {
  const name = `halfway-${crypto.randomUUID().slice(0, 8)}`;
  expect((await send("PUT", `/lists/${name}`, { title: "First" })).status).toBe(201);
  expect((await send("POST", `/lists/${name}/tasks`, { title: "One", completed: false })).status).toBe(200);
  const change = await changeOf(name);
  expect((await send("DELETE", `/lists/${name}`)).status).toBe(204);
  const deleted = await storedIn(name);
  // The first of the two steps that make a list in its object: its tables, then its row.
  await runInDurableObject(listObjects().getByName(name), (_instance, state) => {
    openSqliteDatabase(storageConnection(state.storage));
  });
  await evictDurableObject(listObjects().getByName(name));
  expect((await send("GET", `/lists/${name}/tasks`)).status).toBe(410);
  expect(await storedIn(name)).toEqual(deleted);
  expect((await send("PUT", `/lists/${name}`, { title: "Again" })).status).toBe(201);
  const next = await send("POST", `/lists/${name}/tasks`, { title: "Two", completed: false });
  expect(await next.json()).toEqual({ id: 2, title: "Two", completed: false });
  expect(await changeOf(name)).toBeGreaterThan(change + 1);
});
