import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { HeldTaskStore } from "../../src/engine/held-lists.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { openSqliteDatabase } from "../../src/store/sqlite/sqlite-list.ts";
import { sqliteDefaultList } from "./helpers.ts";

const LIMITS = { maxTasks: 1_000, maxBytes: 1024 * 1024, maxKeys: 100 };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "task-list-restored-"));
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** Puts `copy` back at `path` and starts it on a new history, as `npm run restore` does, at the given clock. */
function restore(copy: string, path: string, now: Date): void {
  vi.setSystemTime(now);
  copyFileSync(copy, path);
  const db = openNodeSqlite(path);
  openSqliteDatabase(db, { restored: true });
  db.close();
}

/** Opens the list at `path` as a server does and adds `count` tasks. */
async function serve(path: string, count: number): Promise<{ store: HeldTaskStore; close: () => void }> {
  const db = openNodeSqlite(path);
  const store = sqliteDefaultList(db);
  for (let i = 0; i < count; i++) await store.append({ title: `Task ${i}`, completed: false }, LIMITS);
  return { store, close: () => db.close() };
}

test("a copy restored twice, a second apart, resets every cursor the first restored list gave, though the second made more changes", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const path = join(dir, "tasks.db");
  const copy = join(dir, "copy.db");
  const made = openNodeSqlite(path);
  sqliteDefaultList(made);
  made.close();
  copyFileSync(path, copy);

  restore(copy, path, new Date("2026-01-01T00:00:00Z"));
  const first = await serve(path, 5);
  const cursor = first.store.read().version.change;
  const etag = first.store.read().version.version;
  first.close();

  restore(copy, path, new Date("2026-01-01T00:00:01Z"));
  const second = await serve(path, 10);
  const list = second.store.read().version;
  expect(list.version).not.toBe(etag);
  expect(list.eventsAfter(cursor).reset).toBe(true);
  // A cursor the second restored list gave does not.
  expect(list.eventsAfter(list.change - 1).reset).toBe(false);
  second.close();
});
