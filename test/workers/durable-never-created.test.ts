import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";
import { listObjects } from "./named-lists.ts";

/** The tables in the SQLite of list `name`'s object but the platform's own (`_cf_…`): none for an object that stored nothing. */
async function tablesOf(name: string): Promise<string[]> {
  return runInDurableObject(listObjects().getByName(name), (_instance, state) =>
    state.storage.sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'")
      .toArray()
      .map((row) => String(row.name)),
  );
}

const request = (path: string, init?: RequestInit) => exports.default.fetch(`http://example.com${path}`, init);

test("a read, a subscription or a page of a name never created answers 404 and stores nothing in its object", async () => {
  const name = `never-${crypto.randomUUID().slice(0, 8)}`;
  for (const path of [
    `/lists/${name}`,
    `/lists/${name}/tasks`,
    `/lists/${name}/tasks/1`,
    `/lists/${name}/tasks/events`,
  ]) {
    const res = await request(path);
    expect(res.status, path).toBe(404);
    await res.body?.cancel();
  }
  const socket = await request(`/lists/${name}/tasks/events`, { headers: { Upgrade: "websocket" } });
  expect(socket.status).toBe(404);
  const page = await request(`/lists/${name}/`, { headers: { Accept: "text/html" } });
  expect(page.status).toBe(404);
  await page.body?.cancel();
  expect(await tablesOf(name)).toEqual([]);
  // Once created, the object keeps its list, and across an eviction.
  const made = await request(`/lists/${name}`, {
    method: "PUT",
    body: JSON.stringify({ title: "Made at last" }),
    headers: { "Content-Type": "application/json" },
  });
  expect(made.status).toBe(201);
  await evictDurableObject(listObjects().getByName(name));
  expect(await tablesOf(name)).toContain("lists");
  const read = await request(`/lists/${name}`);
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ title: "Made at last" });
});
