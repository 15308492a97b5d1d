import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { CONFIGURED_ENV, CONFIGURED_OPTIONS, FILLED_LIST } from "../conformance/configured.ts";
import { describeAlongside } from "../support/describe-alongside.ts";
import { largeTasks, writeReleasedList } from "../support/legacy-sqlite.ts";
import { startServer } from "../support/server.ts";
import { expectNonZeroExit, startFailure } from "../support/server-fixture.ts";
import { createTask, describeDurableServer, postTask, readList } from "./durable-server.ts";
import { describeFileGone } from "./file-gone.ts";
import { describeKillMidLoad } from "./kill-mid-load.ts";
import { describeListsKilled } from "./lists-killed.ts";
import { describeRestoredCopy } from "./restored-copy.ts";

/** The runtimes that keep the list in a SQLite file. */
type SqliteRuntime = "node" | "bun" | "deno";

/**
 * Registers every check of TASK_STORE=sqlite on `runtime`'s real server: the store's part of the
 * conformance suite (its core on node:sqlite), a restart that keeps the list and a kill mid-load
 * (once per driver), and clear failures at start for a SQLITE_PATH it cannot use. Each file lives in a temporary
 * directory removed after the tests.
 */
export function describeSqliteRuntime(runtime: SqliteRuntime): void {
  const dir = mkdtempSync(join(tmpdir(), `task-list-${runtime}-sqlite-`));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const sqliteAt = (path: string) => ({ TASK_STORE: "sqlite", SQLITE_PATH: path });

  // Each driver's durability once: node:sqlite on Node, bun:sqlite on Bun. Deno runs the same
  // store code through its own node:sqlite, whose writes outlive a restart in describeRestoredCopy:
  // a restart or kill -9 there would test SQLite's write-ahead log and this store's transactions
  // again, both already shown on Node and Bun.
  const durable = runtime !== "deno";
  describeDurableServer(
    runtime,
    "TASK_STORE=sqlite",
    () => ({ ...FILLED_LIST.env, ...sqliteAt(join(dir, "default.db")) }),
    durable ? { fresh: true, maxListBytes: FILLED_LIST.maxListBytes } : { fresh: true },
    // node:sqlite, which Deno runs too, has the whole suite in-process (test/unit); Bun's driver here.
    { part: runtime === "bun" ? "store" : "core", durability: durable },
  );
  // Every setting moved is the app's code, run on each runtime by test/conformance and on
  // node:sqlite (Node's driver, which Deno runs too) in-process by test/unit; on the store it needs
  // Bun's driver once more: keys per token, MAX_IDEMPOTENCY_KEYS and MAX_TASKS.
  if (runtime === "bun") {
    describeDurableServer(
      runtime,
      "TASK_STORE=sqlite and every setting configured",
      () => ({ ...CONFIGURED_ENV, ...sqliteAt(join(dir, "configured.db")) }),
      { ...CONFIGURED_OPTIONS, fresh: true },
    );
  }

  if (durable) describeKillMidLoad(runtime, "TASK_STORE=sqlite", () => sqliteAt(join(dir, "killed.db")));
  // One transaction per creation or deletion, on either driver: shown once, on node:sqlite.
  if (runtime === "node") {
    describeListsKilled(runtime, "TASK_STORE=sqlite", () => sqliteAt(join(dir, "lists-killed.db")));
  }
  describeFileGone(runtime, dir);
  describeRestoredCopy(runtime, dir);

  describeAlongside(`${runtime} server on a list made before MAX_LIST_BYTES existed`, () => {
    test(`a ${runtime} server on a list made before MAX_LIST_BYTES existed, and past it, serves every task, returns 507, and logs a warning once`, async () => {
      const path = join(dir, "legacy.db");
      // 18 tasks of about a million bytes: past the default 16 MiB.
      const tasks = largeTasks(18, 500_000);
      writeReleasedList(path, tasks);
      const server = await startServer(runtime, sqliteAt(path));
      try {
        const list = await readList(server.baseUrl);
        expect(list.tasks).toEqual(tasks);
        expect(list.text).toBe(JSON.stringify(tasks));
        const refused = await postTask(server.baseUrl, { title: "", completed: false });
        expect(refused.status).toBe(507);
        expect(JSON.parse(refused.text)).toEqual({
          message: "Task list is full: this task would take the list past its limit of 16777216 bytes",
        });
        expect((await readList(server.baseUrl)).etag).toBe(list.etag);
        const warnings = server
          .output()
          .split("\n")
          .filter((line) => line.includes("more than MAX_LIST_BYTES"));
        expect(warnings).toHaveLength(1);
        expect(JSON.parse(warnings[0] ?? "")).toMatchObject({ level: "warn" });
      } finally {
        await server.stop();
      }
    });
  });

  describeAlongside(`${runtime} server with a SQLITE_PATH it cannot use`, () => {
    /** The start of the message the server must stop with, naming the variable and the path. */
    const refusal = (path: string) =>
      `SQLITE_PATH must name a SQLite database file this process can create, read and write, got ${JSON.stringify(path)}: `;

    test("a file of random bytes stops it at start with a non-zero exit, naming SQLITE_PATH and the cause, and stays as it was", async () => {
      const path = join(dir, "random-bytes.db");
      const bytes = crypto.getRandomValues(new Uint8Array(8192));
      writeFileSync(path, bytes);
      const message = await startFailure(runtime, sqliteAt(path));
      expectNonZeroExit(message);
      expect(message).toContain(`${refusal(path)}file is not a database`);
      expect(new Uint8Array(readFileSync(path))).toEqual(bytes);
    });

    test("a path inside a file stops it at start with a non-zero exit, naming SQLITE_PATH and the cause", async () => {
      const file = join(dir, "plain-file");
      writeFileSync(file, "not a directory");
      const path = join(file, "tasks.db");
      const message = await startFailure(runtime, sqliteAt(path));
      expectNonZeroExit(message);
      expect(message).toContain(`${refusal(path)}unable to open database file`);
    });

    test("a path in a directory it may not write stops it at start with a non-zero exit, naming SQLITE_PATH and the cause", async () => {
      const path = join(unwritableDirectory(dir), "tasks.db");
      const message = await startFailure(runtime, sqliteAt(path));
      expectNonZeroExit(message);
      // Deno's permissions refuse /proc before SQLite is asked, with a cause of their own.
      expect(message).toMatch(
        new RegExp(`${escapeRegExp(refusal(path))}(unable to open database file|Requires all access)`),
      );
    });

    test("a file another server is using stops the second server at start, and the first keeps serving", async () => {
      const path = join(dir, "shared.db");
      const first = await startServer(runtime, sqliteAt(path));
      try {
        const message = await startFailure(runtime, sqliteAt(path));
        expectNonZeroExit(message);
        expect(message).toContain(`${refusal(path)}database is locked`);
        const created = await createTask(first.baseUrl, { title: "Still served", completed: false });
        expect((await readList(first.baseUrl)).tasks.at(-1)).toEqual(created);
      } finally {
        await first.stop();
      }
    });
  });
}

/**
 * A directory no file can be created in. Root writes into any directory whatever its mode, so as
 * root it is /proc, where the kernel refuses new files to everyone.
 */
function unwritableDirectory(parent: string): string {
  if (process.getuid?.() === 0) return "/proc";
  const dir = join(parent, "read-only");
  mkdirSync(dir);
  chmodSync(dir, 0o555);
  return dir;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
