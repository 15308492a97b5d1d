import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseAppConfig } from "../../src/config.ts";
import { ConfigError } from "../../src/errors.ts";
import type { ListVersion } from "../../src/list/list-version.ts";
import { INITIAL_TASKS, type Task } from "../../src/list/task.ts";
import { createServerApp } from "../../src/runtimes/server.ts";
import { openServerStore } from "../../src/store/kinds.ts";
import type { SqliteFileConnection } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { largeTasks, writeOlderList, writeReleasedList } from "../support/legacy-sqlite.ts";
import { joinParts, sqliteDefaultList, taskText, utf8 } from "./helpers.ts";

const decoder = new TextDecoder();
const LIMITS = { maxTasks: 1_000, maxBytes: 1024 * 1024, maxKeys: 100 };

let dir: string;
let path: string;
/** Connections a test opened, closed after it so the next one can take the file's lock. */
const open: SqliteFileConnection[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "task-list-sqlite-"));
  path = join(dir, "tasks.db");
});

afterEach(() => {
  for (const connection of open.splice(0)) connection.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the test's database file, as a server does at start. */
function connect(): SqliteFileConnection {
  return connectTo(path);
}

/** Opens any database file as a server does, closing it after the test. */
function connectTo(file: string): SqliteFileConnection {
  const connection = openNodeSqlite(file);
  open.push(connection);
  return connection;
}

/** Closes a connection, as a server's exit does. */
function close(connection: SqliteFileConnection): void {
  open.splice(open.indexOf(connection), 1);
  connection.close();
}

/** The tasks a read served, parsed from its JSON body. */
function tasksOf(read: ListVersion): Task[] {
  return JSON.parse(decoder.decode(joinParts(read.body()))) as Task[];
}

/** What an append that added `task` answers: the task and its JSON. */
function appended(task: Task) {
  return expect.objectContaining({ outcome: "added", task, json: taskText(task) });
}

/** What an append kept out by `limit` answers. */
function full(limit: "tasks" | "bytes") {
  return expect.objectContaining({ outcome: "full", limit });
}

/** What a fresh list followed by these appends holds. */
function listAfter(...appended: Task[]): Task[] {
  return [...INITIAL_TASKS, ...appended];
}

describe("a SQLite store", () => {
  test("starts a new database with the two initial tasks and appends from id 3", async () => {
    const store = sqliteDefaultList(connect());
    expect(tasksOf(store.read().version)).toEqual(INITIAL_TASKS);
    const created = await store.append({ title: "Third", completed: false }, LIMITS);
    expect(created).toEqual(appended({ id: 3, title: "Third", completed: false }));
    expect(tasksOf(store.read().version)).toEqual(listAfter({ id: 3, title: "Third", completed: false }));
  });

  test("writes the initial tasks once: reopening keeps every task and adds no initial task again", async () => {
    const first = connect();
    const created = await sqliteDefaultList(first).append({ title: "Kept", completed: true }, LIMITS);
    close(first);

    const reopened = sqliteDefaultList(connect());
    expect(tasksOf(reopened.read().version)).toEqual(listAfter({ id: 3, title: "Kept", completed: true }));
    expect(created).toEqual(appended({ id: 3, title: "Kept", completed: true }));
    expect(await reopened.append({ title: "Next", completed: false }, LIMITS)).toEqual(
      appended({ id: 4, title: "Next", completed: false }),
    );
  });

  test("does not put the initial tasks back into a list emptied by hand, and never gives an id twice", async () => {
    const first = connect();
    sqliteDefaultList(first);
    first.query("DELETE FROM tasks");
    close(first);

    const reopened = sqliteDefaultList(connect());
    expect(tasksOf(reopened.read().version)).toEqual([]);
    expect(await reopened.append({ title: "Only", completed: false }, LIMITS)).toEqual(
      appended({ id: 3, title: "Only", completed: false }),
    );
  });

  test("gives back every title exactly after a reopen, lone surrogates and NULs included", async () => {
    const titles = ["\ud800", "before \udc00 after", "nul\u0000 inside", 'Grüße 🚀 "q" \\ \u2028', ""];
    const first = connect();
    const store = sqliteDefaultList(first);
    for (const title of titles) await store.append({ title, completed: false }, LIMITS);
    const body = store.read().version.body();
    close(first);

    const reopened = sqliteDefaultList(connect()).read().version;
    expect(joinParts(reopened.body())).toEqual(joinParts(body));
    expect(tasksOf(reopened).map((task) => task.title)).toEqual([
      ...INITIAL_TASKS.map((task) => task.title),
      ...titles,
    ]);
  });

  test("keeps its version across a reopen, so clients' ETags stay valid after a restart", async () => {
    const first = connect();
    const { version } = sqliteDefaultList(first).read().version;
    close(first);

    expect(sqliteDefaultList(connect()).read().version.version).toBe(version);
  });

  test("gives two databases of the same length different versions", async () => {
    const one = sqliteDefaultList(connect()).read().version;
    const otherPath = join(dir, "other.db");
    const other = openNodeSqlite(otherPath);
    open.push(other);
    const two = sqliteDefaultList(other).read().version;
    expect(tasksOf(two)).toEqual(tasksOf(one));
    expect(two.version).not.toBe(one.version);
  });

  test("keeps its version until an append changes it", async () => {
    const store = sqliteDefaultList(connect());
    const { version } = store.read().version;
    expect(store.read().version.version).toBe(version);
    await store.append({ title: "Change", completed: false }, LIMITS);
    const after = store.read().version;
    expect(after.version).not.toBe(version);
    expect(tasksOf(after)).toHaveLength(INITIAL_TASKS.length + 1);
  });

  test("refuses an append once the list holds maxTasks tasks, and writes nothing", async () => {
    const first = connect();
    const store = sqliteDefaultList(first);
    const limits = { ...LIMITS, maxTasks: INITIAL_TASKS.length + 1 };
    const kept = { id: 3, title: "Last that fits", completed: false };
    expect(await store.append(kept, limits)).toEqual(appended(kept));
    expect(await store.append({ title: "One too many", completed: true }, limits)).toEqual(full("tasks"));
    expect(tasksOf(store.read().version)).toEqual(listAfter(kept));
    close(first);

    expect(tasksOf((await sqliteDefaultList(connect()).read()).version)).toEqual(listAfter(kept));
  });

  test("throws when a write fails after the row was inserted, and keeps nothing of it, in memory or on disk", async () => {
    const first = connect();
    const store = sqliteDefaultList(first);
    const before = store.read().version;
    // Fails the statement after its row went in, as a disk error while writing would.
    first.query(
      "CREATE TEMP TRIGGER fail_after_insert AFTER INSERT ON main.tasks BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
    );

    await expect(store.append({ title: "Half written", completed: true }, LIMITS)).rejects.toThrow("disk I/O error");
    expect(store.read().version).toEqual(before);

    first.query("DROP TRIGGER temp.fail_after_insert");
    expect(await store.append({ title: "Whole", completed: false }, LIMITS)).toEqual(
      appended({ id: 3, title: "Whole", completed: false }),
    );
    close(first);
    expect(tasksOf((await sqliteDefaultList(connect()).read()).version)).toEqual(
      listAfter({ id: 3, title: "Whole", completed: false }),
    );
  });

  test("a write fault answers POST with 500 and the contract's body, logs the cause, and adds nothing", async () => {
    const connection = connect();
    const app = createApp({ store: sqliteDefaultList(connection), config: parseAppConfig({}) });
    const before = await (await app.request("/tasks")).text();
    connection.query(
      "CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.tasks BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END",
    );
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await app.request("/tasks", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ title: "Never stored", completed: false }),
      });
      expect(res.status).toBe(500);
      expect(await res.text()).toBe(JSON.stringify({ message: "Internal server error" }));
      expect(log.mock.calls.flat().join("\n")).toContain("disk I/O error");
    } finally {
      log.mockRestore();
    }
    expect(await (await app.request("/tasks")).text()).toBe(before);
  });

  test("refuses an append that would take the list's JSON one byte past maxBytes, and writes nothing", async () => {
    const first = connect();
    const store = sqliteDefaultList(first);
    const listBytes = () => store.read().version.usage.bytes;
    const next = { id: 3, title: "Exactly at the limit", completed: true };
    const exact = { ...LIMITS, maxBytes: listBytes() + utf8(taskText(next)).byteLength + 1 };
    expect(await store.append(next, { ...exact, maxBytes: exact.maxBytes - 1 })).toEqual(full("bytes"));
    expect(await store.append(next, exact)).toEqual(appended(next));
    expect(listBytes()).toBe(exact.maxBytes);
    const body = store.read().version.body();
    expect(body?.byteLength).toBe(exact.maxBytes);
    expect(joinParts(body).byteLength).toBe(exact.maxBytes);
    expect(await store.append({ title: "", completed: false }, exact)).toEqual(full("bytes"));
    close(first);
    expect(tasksOf((await sqliteDefaultList(connect()).read()).version)).toEqual(listAfter(next));
  });

  test("names the task limit when both limits are reached", async () => {
    const store = sqliteDefaultList(connect());
    const limits = { maxTasks: INITIAL_TASKS.length, maxBytes: store.read().version.usage.bytes, maxKeys: 100 };
    expect(await store.append({ title: "x", completed: false }, limits)).toEqual(full("tasks"));
  });

  test("opens a list version 0.1.0 wrote: keeps every task, its version and its keys, and checks appends against its bytes", async () => {
    const tasks = largeTasks(40, 3000);
    writeReleasedList(path, tasks, "kept-key");
    const first = connect();
    const store = sqliteDefaultList(first);
    const json = utf8(JSON.stringify(tasks));
    expect(store.read().version.usage).toEqual({ tasks: 40, bytes: json.byteLength });
    expect(joinParts(store.read().version.body())).toEqual(json);
    expect(store.read().version.version).toBe("released00000000-40");
    expect(first.query("SELECT version FROM schema_version")).toEqual([{ version: 5 }]);
    const key = { scope: "", key: "kept-key", fingerprint: "fingerprint" };
    expect(await store.append({ title: "Again", completed: false }, LIMITS, key)).toMatchObject({
      outcome: "replayed",
      json: taskText(tasks[0] as Task),
    });
    expect(await store.append({ title: "Next", completed: false }, { ...LIMITS, maxBytes: json.byteLength })).toEqual(
      full("bytes"),
    );
    close(first);
    expect(sqliteDefaultList(connect()).read().version.usage).toEqual({ tasks: 40, bytes: json.byteLength });
  });

  test("refuses a list of a layout older than version 0.1.0's, saying how to move its tasks, and changes nothing in the file", () => {
    writeOlderList(path, largeTasks(3, 10));
    const refused = connect();
    expect(() => sqliteDefaultList(refused)).toThrow(
      "The database holds a list of a layout older than version 0.1.0's (its tasks table has no changed column), which this version does not read: open it with the version that made it, take its tasks out with GET /tasks, and put them into a new list",
    );
    close(refused);
    const db = connect();
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'schema_version'")).toEqual([]);
  });

  test("refuses a second store on a file another store holds open", () => {
    sqliteDefaultList(connect());
    expect(() => sqliteDefaultList(openNodeSqlite(path))).toThrow(/locked/);
  });
});

describe("the store a server starts with", () => {
  test("a list already past MAX_LIST_BYTES starts, serves every task, returns 507, and the log says so once", async () => {
    const tasks = largeTasks(30, 20_000);
    writeReleasedList(path, tasks);
    const lines: string[] = [];
    const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const env = { TASK_STORE: "sqlite", SQLITE_PATH: path, MAX_LIST_BYTES: "1048576", LOG_LEVEL: "warn" };
    const { app } = await createServerApp(
      env,
      (file) => open[open.push(openNodeSqlite(file)) - 1] as SqliteFileConnection,
      sink,
    );

    const list = await app.request("/tasks");
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual(tasks);
    const refused = await app.request("/tasks", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ title: "", completed: false }),
    });
    expect(refused.status).toBe(507);
    expect(await refused.json()).toEqual({
      message: "Task list is full: this task would take the list past its limit of 1048576 bytes",
    });
    const warnings = lines.filter((line) => line.includes("MAX_LIST_BYTES"));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? "")).toMatchObject({
      level: "warn",
      message: `The list holds ${utf8(JSON.stringify(tasks)).byteLength} bytes of JSON, more than MAX_LIST_BYTES (1048576): it is served as it is, and every POST answers 507 until the limit is raised`,
    });
  });

  test("a list within its limits is served without a warning", async () => {
    const lines: string[] = [];
    const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const { app } = await createServerApp({ LOG_LEVEL: "warn" }, openNodeSqlite, sink);
    expect((await app.request("/tasks")).status).toBe(200);
    expect(lines).toEqual([]);
  });

  test("fails with a message naming SQLITE_PATH and the cause for a file that is not a database", async () => {
    writeFileSync(path, crypto.getRandomValues(new Uint8Array(4096)));
    const start = () => openServerStore({ TASK_STORE: "sqlite", SQLITE_PATH: path }, { openSqlite: openNodeSqlite });
    await expect(start()).rejects.toThrow(ConfigError);
    await expect(start()).rejects.toThrow(
      `SQLITE_PATH must name a SQLite database file this process can create, read and write, got ${JSON.stringify(path)}: file is not a database`,
    );
  });

  test("fails with a message naming SQLITE_PATH for a path inside a file", async () => {
    writeFileSync(path, "not a directory");
    const inside = join(path, "tasks.db");
    const start = () => openServerStore({ TASK_STORE: "sqlite", SQLITE_PATH: inside }, { openSqlite: openNodeSqlite });
    await expect(start()).rejects.toThrow(
      `SQLITE_PATH must name a SQLite database file this process can create, read and write, got ${JSON.stringify(inside)}: unable to open database file`,
    );
  });
});
