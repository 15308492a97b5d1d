// MAX_IDEMPOTENCY_KEYS bounds each write token's keys on its own: one token's flood of keys
// forgets only that token's oldest, never another token's, in memory and in a SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { MemoryStore } from "../../src/engine/memory.ts";
import type { IdempotencyKey, TaskStore } from "../../src/engine/task-store.ts";
import type { SqliteFileConnection } from "../../src/store/sqlite/file-store.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";
import { sqliteDefaultList } from "./helpers.ts";

const MAX_KEYS = 3;
const LIMITS = { maxTasks: 1_000, maxBytes: 1024 * 1024, maxKeys: MAX_KEYS };

const dirs: string[] = [];
const connections: SqliteFileConnection[] = [];
afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A SQLite store on a file of its own, and a way to open that file again as a restarted server does. */
function sqliteFile(): { open: () => TaskStore; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "task-list-keys-"));
  dirs.push(dir);
  return {
    open: () => {
      const connection = openNodeSqlite(join(dir, "tasks.db"));
      connections.push(connection);
      return sqliteDefaultList(connection);
    },
    close: () => {
      for (const connection of connections.splice(0)) connection.close();
    },
  };
}

/** Token `scope`'s key `key` for the task titled `title`. */
function keyOf(scope: string, key: string, title: string): IdempotencyKey {
  return { scope, key, fingerprint: `fingerprint of ${title}` };
}

/** Appends the task titled `title` with the key, and says what the store did. */
async function send(store: TaskStore, scope: string, key: string, title: string): Promise<string> {
  const result = await store.append({ title, completed: false }, LIMITS, keyOf(scope, key, title));
  return result.outcome;
}

/** Token "flood" sends `count` new keys. */
async function flood(store: TaskStore, count: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++)
    expect(await send(store, "flood", `flood-${i}`, `Flood ${i}`)).toBe("added");
}

const STORES = [
  { name: "memory", open: () => new MemoryStore() },
  { name: "a SQLite file", open: () => sqliteFile().open() },
];

describe.each(STORES)("Idempotency-Keys of two write tokens in $name", ({ open }) => {
  test("a token that sends more keys than the limit forgets only its own oldest: the other's key still replays", async () => {
    const store = open();
    expect(await send(store, "victim", "mine", "Mine")).toBe("added");
    await flood(store, MAX_KEYS + 5);
    expect(await send(store, "victim", "mine", "Mine")).toBe("replayed");
    expect(await send(store, "flood", `flood-${MAX_KEYS + 4}`, `Flood ${MAX_KEYS + 4}`)).toBe("replayed");
    expect(await send(store, "flood", "flood-0", "Flood 0")).toBe("added");
  });

  test("each token keeps its last MAX_IDEMPOTENCY_KEYS keys, and forgets the one before", async () => {
    const store = open();
    for (const scope of ["one", "two"]) {
      for (let i = 0; i <= MAX_KEYS; i++) expect(await send(store, scope, `key-${i}`, `${scope} ${i}`)).toBe("added");
    }
    for (const scope of ["one", "two"]) {
      for (let i = 1; i <= MAX_KEYS; i++)
        expect(await send(store, scope, `key-${i}`, `${scope} ${i}`)).toBe("replayed");
      expect(await send(store, scope, "key-0", `${scope} 0`)).toBe("added");
    }
  });
});

describe("Idempotency-Keys of two write tokens in a SQLite file, across a restart", () => {
  test("a token's flood after a restart still forgets only its own keys", async () => {
    const file = sqliteFile();
    const before = file.open();
    expect(await send(before, "victim", "mine", "Mine")).toBe("added");
    await flood(before, MAX_KEYS);
    file.close();

    const after = file.open();
    await flood(after, MAX_KEYS + 2, MAX_KEYS);
    expect(await send(after, "victim", "mine", "Mine")).toBe("replayed");
    expect(await send(after, "flood", "flood-0", "Flood 0")).toBe("added");
  });
});
