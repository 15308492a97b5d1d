import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/config.ts";
import {
  hideDatabasePassword,
  parseServerStoreConfig,
  parseWorkerPostgresConfig,
  parseWorkerStoreKind,
  redactDatabaseUrl,
} from "../../src/store/config.ts";

describe("TASK_STORE and SQLITE_PATH on Node, Bun and Deno", () => {
  test("keep the list in memory when TASK_STORE is unset or empty", () => {
    expect(parseServerStoreConfig({})).toEqual({ kind: "memory" });
    expect(parseServerStoreConfig({ TASK_STORE: "" })).toEqual({ kind: "memory" });
  });

  test("TASK_STORE=sqlite keeps the list in tasks.db unless SQLITE_PATH names another file", () => {
    expect(parseServerStoreConfig({ TASK_STORE: "sqlite" })).toEqual({ kind: "sqlite", path: "tasks.db" });
    expect(parseServerStoreConfig({ TASK_STORE: "sqlite", SQLITE_PATH: "/var/lib/tasks/list.db" })).toEqual({
      kind: "sqlite",
      path: "/var/lib/tasks/list.db",
    });
  });

  test.each(["durable", "SQLITE", "file"])("TASK_STORE=%s stops the server, naming the choices", (value) => {
    expect(() => parseServerStoreConfig({ TASK_STORE: value })).toThrow(
      new ConfigError(`TASK_STORE must be one of memory, sqlite, postgres, got ${JSON.stringify(value)}`),
    );
  });

  test("SQLITE_PATH without TASK_STORE=sqlite stops the server rather than keep the list in memory", () => {
    expect(() => parseServerStoreConfig({ SQLITE_PATH: "tasks.db" })).toThrow(
      new ConfigError(
        'SQLITE_PATH is set but TASK_STORE is memory: set TASK_STORE=sqlite to keep the list in "tasks.db", or unset SQLITE_PATH',
      ),
    );
  });
});

describe("TASK_STORE on Workers", () => {
  test("is memory by default, and durable or postgres when asked", () => {
    expect(parseWorkerStoreKind({})).toBe("memory");
    expect(parseWorkerStoreKind({ TASK_STORE: "durable" })).toBe("durable");
    expect(parseWorkerStoreKind({ TASK_STORE: "postgres" })).toBe("postgres");
  });

  test("TASK_STORE=sqlite stops the Worker, naming the choices", () => {
    expect(() => parseWorkerStoreKind({ TASK_STORE: "sqlite" })).toThrow(
      new ConfigError('TASK_STORE must be one of memory, durable, postgres, got "sqlite"'),
    );
  });

  test("DATABASE_URL and DATABASE_POOL_SIZE stop the Worker: Hyperdrive's binding and pool stand for them", () => {
    expect(() => parseWorkerStoreKind({ TASK_STORE: "postgres", DATABASE_URL: URL })).toThrow(
      new ConfigError(
        "DATABASE_URL is not read on Workers: the database is reached through the TASK_DB Hyperdrive binding, so bind TASK_DB and unset DATABASE_URL",
      ),
    );
    expect(() => parseWorkerStoreKind({ TASK_STORE: "postgres", DATABASE_POOL_SIZE: "5" })).toThrow(
      new ConfigError(
        "DATABASE_POOL_SIZE is not read on Workers: Hyperdrive pools the connections and unset DATABASE_POOL_SIZE",
      ),
    );
  });

  test("DATABASE_SCHEMA names the Worker's list, and without TASK_STORE=postgres stops it", () => {
    expect(parseWorkerPostgresConfig({ DATABASE_SCHEMA: "staging" })).toEqual({ schema: "staging" });
    expect(parseWorkerPostgresConfig({})).toEqual({ schema: "task_list" });
    expect(() => parseWorkerStoreKind({ TASK_STORE: "durable", DATABASE_SCHEMA: "staging" })).toThrow(
      new ConfigError(
        "DATABASE_SCHEMA is set but TASK_STORE is durable: set TASK_STORE=postgres to keep the list in PostgreSQL, or unset DATABASE_SCHEMA",
      ),
    );
  });
});

const URL = "postgres://tasks:s3cret-pass@db.example.com:5432/tasks";

describe("TASK_STORE=postgres on Node, Bun and Deno", () => {
  test("reads DATABASE_URL, and keeps the list in schema task_list with a pool of 10 unless told otherwise", () => {
    expect(parseServerStoreConfig({ TASK_STORE: "postgres", DATABASE_URL: URL })).toEqual({
      kind: "postgres",
      url: URL,
      schema: "task_list",
      poolSize: 10,
    });
    expect(
      parseServerStoreConfig({
        TASK_STORE: "postgres",
        DATABASE_URL: URL,
        DATABASE_SCHEMA: "staging_2",
        DATABASE_POOL_SIZE: "3",
      }),
    ).toMatchObject({ schema: "staging_2", poolSize: 3 });
  });

  test("without DATABASE_URL stops the server, saying what it expects", () => {
    expect(() => parseServerStoreConfig({ TASK_STORE: "postgres" })).toThrow(
      new ConfigError(
        "DATABASE_URL must be set when TASK_STORE is postgres: a URL such as postgres://user:password@host:5432/database",
      ),
    );
  });

  test.each(["host=db password=s3cret-pass", "mysql://tasks:s3cret-pass@db/tasks", "postgres://"])(
    "a DATABASE_URL that is not a postgres:// URL (%s) stops the server without showing the value",
    (value) => {
      const parse = () => parseServerStoreConfig({ TASK_STORE: "postgres", DATABASE_URL: value });
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
      parseServerStoreConfig({ TASK_STORE: "postgres", DATABASE_URL: URL, DATABASE_SCHEMA: schema }),
    ).toThrow(
      new ConfigError(
        `DATABASE_SCHEMA must be a schema name of 1 to 63 lowercase letters, digits and underscores, starting with a letter or underscore, and neither pg_ at its start nor information_schema, got ${JSON.stringify(schema)}`,
      ),
    );
  });

  test.each(["0", "101", "ten", "-1", "2.5"])("DATABASE_POOL_SIZE=%s stops the server, naming the range", (size) => {
    expect(() =>
      parseServerStoreConfig({ TASK_STORE: "postgres", DATABASE_URL: URL, DATABASE_POOL_SIZE: size }),
    ).toThrow(new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 100, got ${JSON.stringify(size)}`));
  });

  test.each([
    ["DATABASE_URL", URL],
    ["DATABASE_SCHEMA", "staging"],
    ["DATABASE_POOL_SIZE", "4"],
  ])("%s without TASK_STORE=postgres stops the server rather than keep the list elsewhere", (name, value) => {
    expect(() => parseServerStoreConfig({ [name]: value })).toThrow(
      new ConfigError(
        `${name} is set but TASK_STORE is memory: set TASK_STORE=postgres to keep the list in PostgreSQL, or unset ${name}`,
      ),
    );
  });

  test("SQLITE_PATH with TASK_STORE=postgres stops the server", () => {
    expect(() =>
      parseServerStoreConfig({ TASK_STORE: "postgres", DATABASE_URL: URL, SQLITE_PATH: "tasks.db" }),
    ).toThrow(
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
