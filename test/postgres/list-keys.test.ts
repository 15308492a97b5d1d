// List keys in PostgreSQL, shared by processes: a key one process makes opens the list in another,
// a revocation or a deletion in one is answered 401 by the other at once and ends the other's
// subscriptions opened with it, and the schema keeps only each key's hash.
import type postgres from "postgres";
import { afterAll, expect, inject, test } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import type { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import { eventually } from "../support/eventually.ts";
import { sendJson } from "../unit/list-requests.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

const WRITE = "postgres-write-token-0123456789";
const asWriter = { Authorization: `Bearer ${WRITE}` };

/** The app of one server process on the lists in `schema`, opened, with WRITE_TOKENS and READ_TOKENS set. */
async function processApp(schema: string): Promise<{ app: TaskApp; sql: postgres.Sql; lists: PostgresLists }> {
  const { lists, sql } = processStore(url, schema);
  pools.push(sql);
  await lists.open();
  const config = parseAppConfig({
    LOG_LEVEL: "off",
    WRITE_TOKENS: WRITE,
    READ_TOKENS: "postgres-read-token-0123456789",
  });
  return { app: createApp({ lists, config }), sql, lists };
}

async function statusOf(app: TaskApp, path: string, key: string): Promise<number> {
  const res = await app.request(path, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

test("a key made in one process opens its list in another, until one of them revokes it or deletes the list", async () => {
  const one = await processApp("list_keys_shared");
  const two = await processApp("list_keys_shared");
  expect((await sendJson(one.app, "PUT", "/lists/family", { title: "Family" }, asWriter)).status).toBe(201);
  const made = async (access: string) => {
    const res = await sendJson(one.app, "POST", "/lists/family/keys", { access, label: "Ünïcode \u0000" }, asWriter);
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; key: string; label: string };
  };
  const read = await made("read");
  const write = await made("write");
  expect(read.label).toBe("Ünïcode \u0000");
  const rows = await one.sql.unsafe("SELECT * FROM list_keys_shared.access_keys");
  expect(rows).toHaveLength(2);
  expect(JSON.stringify(rows)).not.toContain(read.key);
  expect(await statusOf(two.app, "/lists/family/tasks", read.key)).toBe(200);
  const listed = await two.app.request("/lists/family/keys", { headers: asWriter });
  expect(((await listed.json()) as { label: string }[]).map((key) => key.label)).toEqual([read.label, read.label]);
  expect((await two.app.request(`/lists/family/keys/${read.id}`, { method: "DELETE", headers: asWriter })).status).toBe(
    204,
  );
  expect(await statusOf(one.app, "/lists/family/tasks", read.key)).toBe(401);
  expect(await statusOf(one.app, "/lists/family/tasks", write.key)).toBe(200);
  expect((await two.app.request("/lists/family", { method: "DELETE", headers: asWriter })).status).toBe(204);
  expect(await statusOf(one.app, "/lists/family/tasks", write.key)).toBe(401);
  expect((await sendJson(one.app, "PUT", "/lists/family", { title: "Again" }, asWriter)).status).toBe(201);
  expect(await statusOf(two.app, "/lists/family/tasks", write.key)).toBe(401);
  expect(await one.sql.unsafe("SELECT * FROM list_keys_shared.access_keys")).toHaveLength(0);
});

test("of many keys made at once from two processes, no more than a list's 100 are kept; a revoked key makes room for one, and the list made again holds 100 anew", async () => {
  const one = await processApp("list_keys_full");
  const two = await processApp("list_keys_full");
  expect((await sendJson(one.app, "PUT", "/lists/crowded", { title: "Crowded" }, asWriter)).status).toBe(201);
  const made = await Promise.all(
    Array.from({ length: 110 }, (_, i) =>
      sendJson(i % 2 === 0 ? one.app : two.app, "POST", "/lists/crowded/keys", { access: "read" }, asWriter),
    ),
  );
  const statuses = made.map((res) => res.status);
  expect(statuses.filter((status) => status === 201)).toHaveLength(100);
  expect(statuses.filter((status) => status === 507)).toHaveLength(10);
  const add = (app: TaskApp) => sendJson(app, "POST", "/lists/crowded/keys", { access: "read" }, asWriter);
  const kept = made.find((res) => res.status === 201);
  if (kept === undefined) throw new Error("A key was made");
  const { id } = (await kept.json()) as { id: string };
  expect((await two.app.request(`/lists/crowded/keys/${id}`, { method: "DELETE", headers: asWriter })).status).toBe(
    204,
  );
  expect((await add(one.app)).status).toBe(201);
  expect((await add(two.app)).status).toBe(507);
  expect((await one.app.request("/lists/crowded", { method: "DELETE", headers: asWriter })).status).toBe(204);
  expect((await sendJson(two.app, "PUT", "/lists/crowded", { title: "Again" }, asWriter)).status).toBe(201);
  const again = await Promise.all(Array.from({ length: 100 }, (_, i) => add(i % 2 === 0 ? one.app : two.app)));
  expect(again.map((res) => res.status).filter((status) => status === 201)).toHaveLength(100);
  expect((await add(one.app)).status).toBe(507);
});

test("a subscription one process holds for a key gets revoked and ends when another process revokes the key", async () => {
  const one = await processApp("list_keys_followed");
  const two = await processApp("list_keys_followed");
  expect((await sendJson(one.app, "PUT", "/lists/followed", { title: "Followed" }, asWriter)).status).toBe(201);
  const made = await sendJson(one.app, "POST", "/lists/followed/keys", { access: "read" }, asWriter);
  const { id, key } = (await made.json()) as { id: string; key: string };
  const stream = await two.app.request("/lists/followed/tasks/events", { headers: { Authorization: `Bearer ${key}` } });
  expect(stream.status).toBe(200);
  // The stream's whole text, read until the service ends it.
  const text = stream.text();
  const revoke = await one.app.request(`/lists/followed/keys/${id}`, { method: "DELETE", headers: asWriter });
  expect(revoke.status).toBe(204);
  expect((await text).endsWith("event: revoked\ndata: {}\n\n")).toBe(true);
});

test("a process that listens is told by NOTIFY when another process revokes a key of a list", async () => {
  const one = await processApp("list_keys_told");
  const two = await processApp("list_keys_told");
  expect((await sendJson(one.app, "PUT", "/lists/told", { title: "Told" }, asWriter)).status).toBe(201);
  const made = await sendJson(one.app, "POST", "/lists/told/keys", { access: "read" }, asWriter);
  const { id } = (await made.json()) as { id: string };
  let told = 0;
  const stop = two.lists.list("told").keys.onChange?.(() => {
    told += 1;
  });
  expect(stop).toBeDefined();
  expect((await one.app.request(`/lists/told/keys/${id}`, { method: "DELETE", headers: asWriter })).status).toBe(204);
  await eventually(() => (told > 0 ? true : undefined));
  stop?.();
});
