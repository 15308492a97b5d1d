// Apps with many lists in memory or in a SQLite file, as the lists' tests make them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import { HeldLists } from "../../src/engine/held-lists.ts";
import type { TaskLists } from "../../src/engine/task-store.ts";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";

/** The stores that hold many lists in this process, by the name the tests give them. */
export const LIST_STORES = ["memory", "a SQLite file"] as const;
export type ListStore = (typeof LIST_STORES)[number];

/**
 * New lists in `store`, made inside a test: a SQLite file of their own, closed and removed once the
 * test finishes.
 */
export function newLists(store: ListStore = "memory"): TaskLists {
  if (store === "memory") return new HeldLists();
  const dir = mkdtempSync(join(tmpdir(), "task-list-lists-"));
  const connection = openNodeSqlite(join(dir, "tasks.db"));
  onTestFinished(() => {
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return new SqliteFileLists(connection);
}

/** The app over new lists in `store`, configured from `env` (its log off unless `env` says otherwise). */
export function listsApp(env: EnvRecord = {}, store: ListStore = "memory"): TaskApp {
  return createApp({ lists: newLists(store), config: parseAppConfig({ LOG_LEVEL: "off", ...env }) });
}
