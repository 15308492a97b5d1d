import { describe, expect, test } from "vitest";
import { HeldLists } from "../../src/engine/held-lists.ts";
import { ConfigError } from "../../src/errors.ts";
import { type DirectoryNamespace, DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import type { ListObjectNamespace } from "../../src/store/durable-object/list-object-rpc.ts";
import { openServerStore, openWorkerStore, type WorkerHost } from "../../src/store/kinds.ts";
import { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import {
  hideDatabasePassword,
  parsePostgresServerConfig,
  redactDatabaseUrl,
} from "../../src/store/postgres/settings.ts";
import { SqliteFileLists } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";

/** A server host whose SQLite files are in memory, remembering the paths it was asked to open. */
function serverHost(): { openSqlite: typeof openNodeSqlite; opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    openSqlite: (path) => {
      opened.push(path);
      return openNodeSqlite(":memory:");
    },
  };
}

/** A Worker host with the bindings given; nothing is called at open. */
function workerHost(bindings: WorkerHost["bindings"] = {}): WorkerHost {
  return { bindings, request: () => undefined, waitUntil: () => {} };
}

const NAMESPACE: ListObjectNamespace = {
  getByName: () => {
    throw new Error("not called at open");
  },
};
const DIRECTORY: DirectoryNamespace = {
  getByName: () => {
    throw new Error("not called at open");
  },
};

describe("TASK_STORE and SQLITE_PATH on Node, Bun and Deno", () => {
  test("keep the list in memory when TASK_STORE is unset or empty", async () => {
    expect((await openServerStore({}, serverHost())).lists).toBeInstanceOf(HeldLists);
    expect((await openServerStore({ TASK_STORE: "" }, serverHost())).lists).toBeInstanceOf(HeldLists);
  });

  test("TASK_STORE=sqlite keeps the list in tasks.db unless SQLITE_PATH names another file", async () => {
    const host = serverHost();
    expect((await openServerStore({ TASK_STORE: "sqlite" }, host)).lists).toBeInstanceOf(SqliteFileLists);
    await openServerStore({ TASK_STORE: "sqlite", SQLITE_PATH: "/var/lib/tasks/list.db" }, host);
    expect(host.opened).toEqual(["tasks.db", "/var/lib/tasks/list.db"]);
  });

  test.each(["durable", "SQLITE", "file"])("TASK_STORE=%s stops the server, naming the choices", async (value) => {
    await expect(openServerStore({ TASK_STORE: value }, serverHost())).rejects.toThrow(
      new ConfigError(`TASK_STORE must be one of memory, sqlite, postgres, got ${JSON.stringify(value)}`),
    );
  });

  test("SQLITE_PATH without TASK_STORE=sqlite stops the server rather than keep the list in memory", async () => {
    await expect(openServerStore({ SQLITE_PATH: "tasks.db" }, serverHost())).rejects.toThrow(
      new ConfigError(
        'SQLITE_PATH is set but TASK_STORE is memory: set TASK_STORE=sqlite to keep the list in "tasks.db", or unset SQLITE_PATH',
      ),
    );
  });
});

describe("TASK_STORE on Workers", () => {
  test("is memory by default, and durable or postgres when asked, from their bindings", async () => {
    expect((await openWorkerStore({}, workerHost())).lists).toBeInstanceOf(HeldLists);
    expect(
      (await openWorkerStore({ TASK_STORE: "durable" }, workerHost({ TASK_LIST: NAMESPACE, TASK_LISTS: DIRECTORY })))
        .lists,
    ).toBeInstanceOf(DurableLists);
    const hyperdrive = { connectionString: "postgres://user:secret@127.0.0.1:1/tasks" };
    expect(
      (await openWorkerStore({ TASK_STORE: "postgres" }, workerHost({ TASK_DB: hyperdrive }))).lists,
    ).toBeInstanceOf(PostgresLists);
  });

  test("a request runs in its own work for the stores that keep something per request, not for memory", async () => {
    const hyperdrive = { connectionString: "postgres://user:secret@127.0.0.1:1/tasks" };
    const durable = workerHost({ TASK_LIST: NAMESPACE, TASK_LISTS: DIRECTORY });
    expect((await openWorkerStore({}, workerHost())).perRequest).toBe(false);
    // The read a key's check brought, kept for the same request.
    expect((await openWorkerStore({ TASK_STORE: "durable" }, durable)).perRequest).toBe(true);
    // A database client, which serves one request only.
    expect((await openWorkerStore({ TASK_STORE: "postgres" }, workerHost({ TASK_DB: hyperdrive }))).perRequest).toBe(
      true,
    );
  });

  test("TASK_STORE=sqlite stops the Worker, naming the choices", async () => {
    await expect(openWorkerStore({ TASK_STORE: "sqlite" }, workerHost())).rejects.toThrow(
      new ConfigError('TASK_STORE must be one of memory, durable, postgres, got "sqlite"'),
    );
  });

  test("TASK_STORE=durable without the TASK_LIST binding stops the Worker, naming the binding", async () => {
    await expect(openWorkerStore({ TASK_STORE: "durable" }, workerHost())).rejects.toThrow(
      new ConfigError(
        "TASK_STORE is durable but the TASK_LIST Durable Object binding is missing: run or deploy with --env durable, or bind TASK_LIST to the TaskListObject class in wrangler.toml",
      ),
    );
  });

  test("TASK_STORE=durable without the TASK_LISTS binding stops the Worker, naming the binding", async () => {
    await expect(openWorkerStore({ TASK_STORE: "durable" }, workerHost({ TASK_LIST: NAMESPACE }))).rejects.toThrow(
      new ConfigError(
        "TASK_STORE is durable but the TASK_LISTS Durable Object binding is missing: run or deploy with --env durable, or bind TASK_LISTS to the ListDirectoryObject class in wrangler.toml",
      ),
    );
  });

  test("TASK_STORE=postgres without the TASK_DB binding stops the Worker, naming the binding", async () => {
    await expect(openWorkerStore({ TASK_STORE: "postgres" }, workerHost())).rejects.toThrow(
      new ConfigError(
        "TASK_STORE is postgres but the TASK_DB Hyperdrive binding is missing: run or deploy with --env postgres, or bind TASK_DB to a Hyperdrive configuration in wrangler.toml",
      ),
    );
  });

  test("DATABASE_URL, DATABASE_POOL_SIZE and SQLITE_PATH stop the Worker, saying what stands for them", async () => {
    const host = workerHost({ TASK_DB: { connectionString: "postgres://127.0.0.1/tasks" } });
    await expect(openWorkerStore({ TASK_STORE: "postgres", DATABASE_URL: URL }, host)).rejects.toThrow(
      new ConfigError(
        "DATABASE_URL is not read on Workers: the database is reached through the TASK_DB Hyperdrive binding, so bind TASK_DB and unset DATABASE_URL",
      ),
    );
    await expect(openWorkerStore({ TASK_STORE: "postgres", DATABASE_POOL_SIZE: "5" }, host)).rejects.toThrow(
      new ConfigError(
        "DATABASE_POOL_SIZE is not read on Workers: Hyperdrive pools the connections and unset DATABASE_POOL_SIZE",
      ),
    );
    await expect(openWorkerStore({ SQLITE_PATH: "tasks.db" }, host)).rejects.toThrow(
      new ConfigError(
        "SQLITE_PATH is not read on Workers: set TASK_STORE=durable to keep the list in the Durable Object's SQLite and unset SQLITE_PATH",
      ),
    );
  });

  test("DATABASE_SCHEMA without TASK_STORE=postgres stops the Worker; a bad one stops it too", async () => {
    const host = workerHost({ TASK_LIST: NAMESPACE, TASK_DB: { connectionString: "postgres://127.0.0.1/tasks" } });
    await expect(openWorkerStore({ TASK_STORE: "durable", DATABASE_SCHEMA: "staging" }, host)).rejects.toThrow(
      new ConfigError(
        "DATABASE_SCHEMA is set but TASK_STORE is durable: set TASK_STORE=postgres to keep the list in PostgreSQL, or unset DATABASE_SCHEMA",
      ),
    );
    await expect(openWorkerStore({ TASK_STORE: "postgres", DATABASE_SCHEMA: "Tasks-List" }, host)).rejects.toThrow(
      /^DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase/,
    );
  });
});

const URL = "postgres://tasks:s3cret-pass@db.example.com:5432/tasks";

describe("TASK_STORE=postgres on Node, Bun and Deno", () => {
  test("reads DATABASE_URL, and keeps the list in schema task_list with a pool of 10 unless told otherwise", () => {
    expect(parsePostgresServerConfig({ TASK_STORE: "postgres", DATABASE_URL: URL })).toEqual({
      url: URL,
      schema: "task_list",
      poolSize: 10,
    });
    expect(
      parsePostgresServerConfig({
        TASK_STORE: "postgres",
        DATABASE_URL: URL,
        DATABASE_SCHEMA: "staging_2",
        DATABASE_POOL_SIZE: "3",
      }),
    ).toMatchObject({ schema: "staging_2", poolSize: 3 });
  });

  test("without DATABASE_URL stops the server, saying what it expects", () => {
    expect(() => parsePostgresServerConfig({ TASK_STORE: "postgres" })).toThrow(
      new ConfigError(
        "DATABASE_URL must be set when TASK_STORE is postgres: a URL such as postgres://user:password@host:5432/database",
      ),
    );
  });

  test.each(["host=db password=s3cret-pass", "mysql://tasks:s3cret-pass@db/tasks", "postgres://"])(
    "a DATABASE_URL that is not a postgres:// URL (%s) stops the server without showing the value",
    (value) => {
      const parse = () => parsePostgresServerConfig({ TASK_STORE: "postgres", DATABASE_URL: value });
      expect(parse).toThrow(
        new ConfigError(
          "DATABASE_URL must be a URL that starts with postgres:// or postgresql://, such as postgres://user:password@host:5432/database",
        ),
      );
    },
  );

  test.each([
    "Tasks",
    "task-list",
    "1list",
    "pg_tasks",
    "information_schema",
    "a".repeat(64),
    'x"; DROP SCHEMA public; --',
  ])("DATABASE_SCHEMA=%s stops the server: only a plain lowercase identifier goes into SQL", (schema) => {
    expect(() =>
      parsePostgresServerConfig({ TASK_STORE: "postgres", DATABASE_URL: URL, DATABASE_SCHEMA: schema }),
    ).toThrow(
      new ConfigError(
        `DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase letters, digits and underscores, starting with a letter or underscore, and neither pg_ at its start nor information_schema, got ${JSON.stringify(schema)}`,
      ),
    );
  });

  test.each(["0", "101", "ten", "-1", "2.5"])("DATABASE_POOL_SIZE=%s stops the server, naming the range", (size) => {
    expect(() =>
      parsePostgresServerConfig({ TASK_STORE: "postgres", DATABASE_URL: URL, DATABASE_POOL_SIZE: size }),
    ).toThrow(new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 100, got ${JSON.stringify(size)}`));
  });

  test.each([
    ["DATABASE_URL", URL],
    ["DATABASE_SCHEMA", "staging"],
    ["DATABASE_POOL_SIZE", "4"],
  ])("%s without TASK_STORE=postgres stops the server rather than keep the list elsewhere", async (name, value) => {
    await expect(openServerStore({ [name]: value }, serverHost())).rejects.toThrow(
      new ConfigError(
        `${name} is set but TASK_STORE is memory: set TASK_STORE=postgres to keep the list in PostgreSQL, or unset ${name}`,
      ),
    );
  });

  test("SQLITE_PATH with TASK_STORE=postgres stops the server", async () => {
    await expect(
      openServerStore({ TASK_STORE: "postgres", DATABASE_URL: URL, SQLITE_PATH: "tasks.db" }, serverHost()),
    ).rejects.toThrow(
      new ConfigError(
        'SQLITE_PATH is set but TASK_STORE is postgres: set TASK_STORE=sqlite to keep the list in "tasks.db", or unset SQLITE_PATH',
      ),
    );
  });
});

describe("a database URL in a message", () => {
  test.each([
    [URL, "postgres://tasks:***@db.example.com:5432/tasks"],
    [
      "postgresql://u%40x:p@ss:w/rd@h1:5432,h2:5433/db?sslmode=require",
      "postgresql://u%40x:***@h1:5432,h2:5433/db?sslmode=require",
    ],
    [
      "postgres://db.example.com/tasks?user=tasks&password=s3cret-pass",
      "postgres://db.example.com/tasks?user=tasks&password=***",
    ],
    ["postgres://tasks@db.example.com/tasks", "postgres://tasks@db.example.com/tasks"],
    ["not a url s3cret-pass", "(a value that is not a URL)"],
  ])("%s is shown as %s", (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });

  test("a message that quotes the password, as written or percent-decoded, shows *** instead", () => {
    expect(hideDatabasePassword("login as tasks with s3cret-pass failed", URL)).toBe("login as tasks with *** failed");
    expect(hideDatabasePassword("p@ss w0rd! refused", "postgres://u:p%40ss%20w0rd!@h/db")).toBe("*** refused");
  });
});
