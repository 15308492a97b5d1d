// What a list's own routes (`/lists/{name}`) read in PostgreSQL: the list's row alone, never its
// tasks, so a process reading or retitling a long list copies none of it.
import type postgres from "postgres";
import { afterAll, expect, inject, test } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { sendJson } from "../unit/list-requests.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

test("a process that reads, retitles and patches a long list through /lists/{name} copies none of its tasks, and answers as the list is", async () => {
  const schema = "list_state";
  const writer = processStore(url, schema);
  const reader = processStore(url, schema);
  pools.push(writer.sql, reader.sql);
  await writer.lists.open();
  await reader.lists.open();
  const made = await writer.lists.put(
    "long",
    "Long",
    { ifMatch: undefined, ifNoneMatch: false },
    { maxLists: 100, maxKeys: 10_000 },
  );
  expect(made.outcome).toBe("created");
  const long = writer.lists.list("long");
  for (let at = 0; at < 200; at++)
    await long.append({ title: `Task ${at} ${"x".repeat(200)}`, completed: false }, LIMITS);
  const app = createApp({ lists: reader.lists, config: parseAppConfig({ LOG_LEVEL: "off" }) });

  const read = await app.request("/lists/long");
  expect(read.status).toBe(200);
  expect(await read.json()).toEqual({ name: "long", title: "Long" });
  const etag = read.headers.get("ETag") ?? "";
  const retitled = await sendJson(app, "PUT", "/lists/long", { title: "Longer" }, { "If-Match": etag });
  expect(retitled.status).toBe(200);
  const patched = await app.request("/lists/long", {
    method: "PATCH",
    headers: { "Content-Type": "application/merge-patch+json", "If-Match": retitled.headers.get("ETag") ?? "" },
    body: JSON.stringify({ title: "Longest" }),
  });
  expect(patched.status).toBe(200);
  expect(await (await app.request("/lists/long")).json()).toEqual({ name: "long", title: "Longest" });
  expect((await app.request("/lists/never")).status).toBe(404);

  expect(reader.lists.copies.peek("long")?.bytes ?? 0).toBe(0);
  // The tasks are read whole where they are asked for.
  expect(((await (await app.request("/lists/long/tasks")).json()) as unknown[]).length).toBe(200);
  expect(reader.lists.copies.peek("long")?.bytes ?? 0).toBeGreaterThan(40_000);
});
