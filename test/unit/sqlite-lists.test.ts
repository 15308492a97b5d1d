// Lists in a SQLite file across restarts: what a server finds when it opens the file again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { addTask, createList, sendJson } from "./list-requests.ts";

let dir: string;
let close: () => void = () => {};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "task-list-sqlite-lists-"));
});

afterEach(() => {
  close();
  close = () => {};
  rmSync(dir, { recursive: true, force: true });
});

/** The app over the lists of the test's file, opened as a server opens it at start; the last one opened is closed first. */
function serve(env: Record<string, string> = {}): TaskApp {
  close();
  const connection = openNodeSqlite(join(dir, "tasks.db"));
  close = () => connection.close();
  return createApp({ lists: new SqliteFileLists(connection), config: parseAppConfig({ LOG_LEVEL: "off", ...env }) });
}

test("lists, their titles, order, tasks and ETags are as they were after a restart", async () => {
  const first = serve();
  await createList(first, "groceries", "Groceries");
  await createList(first, "work", "Work");
  await addTask(first, "work", "Write the report");
  const lists = await first.request("/lists");
  const work = await first.request("/lists/work/tasks");
  const again = serve();
  const listsAgain = await again.request("/lists");
  expect(await listsAgain.text()).toBe(await lists.text());
  expect(listsAgain.headers.get("ETag")).toBe(lists.headers.get("ETag"));
  const workAgain = await again.request("/lists/work/tasks");
  expect(await workAgain.text()).toBe(await work.text());
  expect(workAgain.headers.get("ETag")).toBe(work.headers.get("ETag"));
  expect((await again.request("/lists/groceries")).status).toBe(200);
});

test("a list deleted before a restart is gone after it, and made again continues its ids and change numbers", async () => {
  const first = serve();
  await createList(first, "errands");
  await addTask(first, "errands");
  const second = await addTask(first, "errands");
  expect((await first.request("/lists/errands", { method: "DELETE" })).status).toBe(204);
  const again = serve();
  expect((await again.request("/lists/errands/tasks")).status).toBe(410);
  expect(await (await again.request("/lists")).json()).toEqual([{ name: "default", title: "Tasks" }]);
  await createList(again, "errands");
  expect(await addTask(again, "errands")).toBe(second + 1);
});

test("a list created with an Idempotency-Key is replayed after a restart, not created twice", async () => {
  const first = serve();
  const headers = { "Idempotency-Key": "make-once" };
  const made = await sendJson(first, "POST", "/lists", { title: "Once" }, headers);
  expect(made.status).toBe(201);
  const again = serve();
  const replayed = await sendJson(again, "POST", "/lists", { title: "Once" }, headers);
  expect(replayed.status).toBe(201);
  expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
  expect(await replayed.json()).toEqual(await made.json());
  expect(await (await again.request("/lists")).json()).toHaveLength(2);
});

test("MAX_LISTS counts the lists the file holds after a restart", async () => {
  const first = serve({ MAX_LISTS: "2" });
  await createList(first, "one");
  const again = serve({ MAX_LISTS: "2" });
  expect((await sendJson(again, "PUT", "/lists/two", { title: "Two" })).status).toBe(507);
});
