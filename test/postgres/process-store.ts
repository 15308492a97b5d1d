// A PostgreSQL store as one server process makes it: a pool of its own on the list in a schema,
// told of other processes' changes by LISTEN, for the tests of the store itself.
import postgres from "postgres";
import { afterAll } from "vitest";
import { PostgresStore } from "../../src/store/postgres/postgres-store.ts";

/** A store on the list in `schema` of the database at `url`, not yet opened, and the pool to end after. */
export function processStore(url: string, schema: string, max = 2): { store: PostgresStore; sql: postgres.Sql } {
  const sql = postgres(url, { max, fetch_types: false, onnotice: () => {}, backoff: () => 0.05 });
  const store = new PostgresStore((work) => work(sql), schema, {
    listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
  });
  return { store, sql };
}

/**
 * Opens stores on `url` as server processes would, each on a pool of its own, ended after the
 * calling file's tests; with `pollMs`, one that reads the list only when asked, as a Worker does.
 */
export function storeOpener(url: string): (schema: string, pollMs?: number) => Promise<PostgresStore> {
  const pools: postgres.Sql[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((sql) => sql.end()));
  });
  return async (schema, pollMs) => {
    const { store: listening, sql } = processStore(url, schema);
    pools.push(sql);
    const store = pollMs === undefined ? listening : new PostgresStore((work) => work(sql), schema, { pollMs });
    await store.open();
    return store;
  };
}
