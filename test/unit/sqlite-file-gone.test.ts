// A SQLite file taken from a running server, or one it cannot write: writes return 503 instead of
// acknowledging tasks a restart would not find, the log says so once, and writes resume once the
// file is back.
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createServerApp, type ServerApp } from "../../src/runtimes/server.ts";
import type { SqliteFileConnection } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";

const UNAVAILABLE = { message: "Task list store cannot be reached: try again in a moment" };

let root: string;
let dir: string;
let path: string;
const connections: SqliteFileConnection[] = [];
let lines: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "task-list-gone-"));
  dir = join(root, "data");
  mkdirSync(dir);
  path = join(dir, "tasks.db");
  lines = [];
});

afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
  rmSync(root, { recursive: true, force: true });
});

/** A server's app on the test's file, as `npm run start:*` builds it, its log after its start kept in `lines`. */
async function serve(): Promise<ServerApp["app"]> {
  const sink = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const open = (file: string) => {
    const connection = openNodeSqlite(file);
    connections.push(connection);
    return connection;
  };
  const before = lines.length;
  const { app } = await createServerApp({ TASK_STORE: "sqlite", SQLITE_PATH: path }, open, sink);
  // The start says where the lists live; what the tests look at is what the store says after it.
  expect(lines.splice(before).map((line) => JSON.parse(line).message)).toEqual([
    `Lists are kept in the SQLite file ${JSON.stringify(path)}, across restarts`,
  ]);
  return app;
}

/** Stops the server's hold on its file, as its exit does. */
function stop(): void {
  for (const connection of connections.splice(0)) connection.close();
}

function post(app: ServerApp["app"], title: string, key?: string): Promise<Response> {
  return Promise.resolve(
    app.request("/tasks", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
      body: JSON.stringify({ title, completed: false }),
    }),
  );
}

async function titles(app: ServerApp["app"]): Promise<string[]> {
  const res = await app.request("/tasks");
  return ((await res.json()) as { title: string }[]).map((task) => task.title);
}

/** The log's lines that are not a request's: what the store said of itself. */
function storeLines(): { level: string; message: string }[] {
  return lines.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === undefined);
}

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get("Retry-After")).toBe("1");
  expect(await res.json()).toEqual(UNAVAILABLE);
}

describe("a SQLite server whose file is taken away while it runs", () => {
  test("returns 503 to every POST once the file's directory is deleted, adds nothing, and logs it once", async () => {
    const app = await serve();
    expect((await post(app, "Kept")).status).toBe(200);
    rmSync(dir, { recursive: true });

    await expectUnavailable(await post(app, "Lost", "key-1"));
    await expectUnavailable(await post(app, "Lost", "key-1"));
    await expectUnavailable(await post(app, "Also lost"));
    expect(await titles(app)).not.toContain("Lost");
    expect(storeLines()).toEqual([
      expect.objectContaining({
        level: "error",
        message: `SQLITE_PATH ${JSON.stringify(path)} no longer holds the database file this server opened (it was deleted, moved away or replaced): writes answer 503 until that file is back at its path, or the server is restarted on the file now there (a copy is put back with npm run restore, with the server stopped)`,
      }),
    ]);
  });

  test("returns 503 when a plain file stands where the file's directory was", async () => {
    const app = await serve();
    rmSync(dir, { recursive: true });
    writeFileSync(dir, "not a directory");
    await expectUnavailable(await post(app, "Lost"));
    expect(storeLines()).toHaveLength(1);
  });

  test("takes POSTs again once the directory moved away is moved back, and the log says so once", async () => {
    const app = await serve();
    const away = join(root, "away");
    renameSync(dir, away);
    await expectUnavailable(await post(app, "Retried", "key-2"));
    renameSync(away, dir);

    const retried = await post(app, "Retried", "key-2");
    expect(retried.status).toBe(200);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    expect((await post(app, "Retried", "key-2")).headers.get("Idempotent-Replayed")).toBe("true");
    expect(storeLines().map((line) => line.level)).toEqual(["error", "info"]);
    expect(storeLines()[1]?.message).toBe(`The SQLite file ${JSON.stringify(path)} takes writes again`);

    stop();
    const restarted = await titles(await serve());
    expect(restarted.filter((title) => title === "Retried")).toHaveLength(1);
  });

  test("keeps answering 503 when a copy is put in the file's place, until a restart opens it", async () => {
    const app = await serve();
    expect((await post(app, "Before the copy")).status).toBe(200);
    const copy = join(root, "copy.db");
    copyFileSync(path, copy);
    rmSync(path);
    renameSync(copy, path);

    await expectUnavailable(await post(app, "After the copy"));
    await expectUnavailable(await post(app, "After the copy"));
    expect(storeLines()).toHaveLength(1);
  });
});

describe("a SQLite server whose file cannot be written", () => {
  test("returns 503 while the disk is full, logs it once, and takes POSTs again once there is room", async () => {
    const app = await serve();
    const [connection] = connections;
    if (connection === undefined) throw new Error("The server opened no file");
    const pages = Number(connection.query("PRAGMA page_count")[0]?.page_count);
    connection.query(`PRAGMA max_page_count = ${pages}`);

    const big = "x".repeat(64 * 1024);
    await expectUnavailable(await post(app, big, "key-3"));
    await expectUnavailable(await post(app, big, "key-3"));
    expect(await titles(app)).not.toContain(big);
    expect(storeLines()).toEqual([
      expect.objectContaining({
        level: "error",
        message: `The SQLite file ${JSON.stringify(path)} cannot be written (database or disk is full): writes answer 503 until a write succeeds`,
      }),
    ]);

    connection.query(`PRAGMA max_page_count = ${pages * 1000}`);
    expect((await post(app, big, "key-3")).status).toBe(200);
    expect(storeLines().map((line) => line.level)).toEqual(["error", "info"]);
  });
});
