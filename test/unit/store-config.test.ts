import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/config.ts";
import { parseServerStoreConfig, parseWorkerStoreKind } from "../../src/store/config.ts";

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
      new ConfigError(`TASK_STORE must be one of memory, sqlite, got ${JSON.stringify(value)}`),
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
  test("is memory by default and durable when asked", () => {
    expect(parseWorkerStoreKind({})).toBe("memory");
    expect(parseWorkerStoreKind({ TASK_STORE: "durable" })).toBe("durable");
  });

  test("TASK_STORE=sqlite stops the Worker, naming the choices", () => {
    expect(() => parseWorkerStoreKind({ TASK_STORE: "sqlite" })).toThrow(
      new ConfigError('TASK_STORE must be one of memory, durable, got "sqlite"'),
    );
  });
});
