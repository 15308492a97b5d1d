import postgres from "postgres";
import { afterAll, describe, expect, inject, test } from "vitest";
import { StoreUnavailableError } from "../../src/errors.ts";
import type { ListVersion } from "../../src/list/list-version.ts";
import { INITIAL_TASKS } from "../../src/list/task.ts";
import { PostgresLists } from "../../src/store/postgres/postgres-lists.ts";
import type { PostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { processStore } from "./process-store.ts";
import { asOperator } from "./servers.ts";

const { url } = inject("postgres");
const LIMITS = { maxTasks: 100_000, maxBytes: 16 * 1024 * 1024, maxKeys: 10_000 };
const pools: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(pools.map((sql) => sql.end()));
});

/** A store as one server process would make it: a pool of its own on the list in `schema`. */
function storeOn(schema: string, max = 2): { lists: PostgresLists; store: PostgresStore; sql: postgres.Sql } {
  const made = processStore(url, schema, max);
  pools.push(made.sql);
  return made;
}

function text(read: ListVersion): string {
  return read
    .body()
    .parts.map((part) => new TextDecoder().decode(part))
    .join("");
}

describe("the PostgreSQL store", () => {
  test("opened by eight processes at once on a schema that does not exist yet, makes one list with the two initial tasks", async () => {
    for (const schema of ["race_a", "race_b", "race_c"]) {
      const processes = Array.from({ length: 8 }, () => storeOn(schema, 1));
      await Promise.all(processes.map(({ lists }) => lists.open()));
      const stores = processes.map(({ store }) => store);
      const reads = await Promise.all(stores.map(async (store) => (await store.read()).version));
      expect(new Set(reads.map((read) => read.version)).size).toBe(1);
      for (const read of reads) expect(JSON.parse(text(read))).toEqual(INITIAL_TASKS);
    }
  });

  test("a list dropped and made again by another process is served as the new list, under a new ETag", async () => {
    const { lists, store: first } = storeOn("remade");
    await lists.open();
    await first.append({ title: "In the old list", completed: false }, LIMITS);
    const old = (await first.read()).version;
    await asOperator(url, (sql) => sql.unsafe("DROP SCHEMA remade CASCADE"));
    const { lists: again, store: second } = storeOn("remade");
    await again.open();
    const remade = (await first.read()).version;
    expect(remade.version).not.toBe(old.version);
    expect(JSON.parse(text(remade))).toEqual(INITIAL_TASKS);
    expect(remade.version).toBe((await second.read()).version.version);
  });

  test("a list whose schema was dropped while serving is made again on the next request", async () => {
    const { lists, store } = storeOn("dropped");
    await lists.open();
    await asOperator(url, (sql) => sql.unsafe("DROP SCHEMA dropped CASCADE"));
    expect(await store.append({ title: "After the drop", completed: true }, LIMITS)).toMatchObject({
      outcome: "added",
      task: { id: 3, title: "After the drop", completed: true },
    });
  });

  test("a connection the database cut mid-query costs only that query: the next one on the pool succeeds", async () => {
    const { lists, store, sql } = storeOn("cut", 1);
    await lists.open();
    const [{ pid }] = (await sql`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
    const busy = sql`SELECT pg_sleep(5)`.then(
      () => "finished",
      (error: { code?: string }) => error.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await asOperator(url, (admin) => admin`SELECT pg_terminate_backend(${pid})`);
    expect(await busy).toBe("CONNECTION_CLOSED");
    // postgres.js hands the cut connection's termination notice to the first query on its
    // replacement; the store asks again rather than return 503 with the database up.
    const read = (await store.read()).version;
    expect(JSON.parse(text(read))).toEqual(INITIAL_TASKS);
  });

  test("a write refused with a terminated connection's notice after its statement ran answers 503 and is not run again", async () => {
    const { lists, store: reader, sql } = storeOn("notice_after_write");
    await lists.open();
    // The append commits, then its connection's termination notice comes instead of its row.
    let cut = false;
    const notice = Object.assign(new Error("terminating connection due to administrator command"), {
      name: "PostgresError",
      code: "57P01",
    });
    const cutting = new Proxy(sql, {
      get(target, property) {
        if (property !== "unsafe") return Reflect.get(target, property);
        return (...args: Parameters<postgres.Sql["unsafe"]>) => {
          const query = target.unsafe(...args);
          if (cut || !args[0].startsWith("SELECT") || !args[0].includes("apply_change(")) return query;
          cut = true;
          return query.then(() => Promise.reject(notice));
        };
      },
    });
    const writer = new PostgresLists((work) => work(cutting), "notice_after_write", { pollMs: 1_000 }).list("default");
    const title = "Committed before the notice";
    await expect(writer.append({ title, completed: false }, LIMITS)).rejects.toThrow(StoreUnavailableError);
    const added = JSON.parse(text((await reader.read()).version)).filter(
      (task: { title: string }) => task.title === title,
    );
    expect(added).toEqual([{ id: 3, title, completed: false }]);
  });

  test("a database that cannot be reached fails each operation with StoreUnavailableError", async () => {
    const sql = postgres("postgres://tasks:secret@127.0.0.1:1/tasks", { max: 1, connect_timeout: 2, backoff: () => 0 });
    pools.push(sql);
    const store = new PostgresLists((work) => work(sql), "unreachable", { pollMs: 1_000 }).list("default");
    await expect(store.read()).rejects.toThrow(StoreUnavailableError);
    await expect(store.append({ title: "Never", completed: false }, LIMITS)).rejects.toThrow(StoreUnavailableError);
  });
});
