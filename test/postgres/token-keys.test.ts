// MAX_IDEMPOTENCY_KEYS bounds each write token's keys on its own in PostgreSQL, whichever process
// sends them: one token's flood forgets only its own oldest keys.
import type postgres from "postgres";
import { afterAll, describe, expect, inject, test } from "vitest";
import type { TaskStore } from "../../src/engine/task-store.ts";
import type { PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { processStore } from "./process-store.ts";

const { url } = inject("postgres");
const MAX_KEYS = 3;
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: MAX_KEYS };
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/** A store as one server process makes it, on the list in `schema`. */
async function storeOn(schema: string): Promise<PostgresStore> {
  const { lists, store, sql } = processStore(url, schema, 1);
  pools.push(sql);
  await lists.open();
  return store;
}

async function send(store: TaskStore, scope: string, key: string, title: string): Promise<string> {
  const fingerprint = `fingerprint of ${title}`;
  return (await store.append({ title, completed: false }, LIMITS, { scope, key, fingerprint })).outcome;
}

async function flood(store: TaskStore, count: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++)
    expect(await send(store, "flood", `flood-${i}`, `Flood ${i}`)).toBe("added");
}

describe("Idempotency-Keys of two write tokens in PostgreSQL", () => {
  test("a token that sends more keys than the limit through another process forgets only its own oldest", async () => {
    const one = await storeOn("token_keys");
    const other = await storeOn("token_keys");
    expect(await send(one, "victim", "mine", "Mine")).toBe("added");
    await flood(other, MAX_KEYS + 5);
    expect(await send(other, "victim", "mine", "Mine")).toBe("replayed");
    expect(await send(one, "flood", `flood-${MAX_KEYS + 4}`, `Flood ${MAX_KEYS + 4}`)).toBe("replayed");
    expect(await send(one, "flood", "flood-0", "Flood 0")).toBe("added");
  });
});
