// The lists in a PostgreSQL schema as one server process keeps them: a pool of its own, told of
// other processes' changes by LISTEN, for the tests of the store itself.
import postgres from "postgres";
import { afterAll } from "vitest";
import { PostgresLists, type PostgresWatch } from "../../src/store/postgres/postgres-lists.ts";
import type { PostgresStore } from "../../src/store/postgres/postgres-store.ts";

/** A process's lists in `schema` of the database at `url`, not yet opened, its default list, and the pool to end after. */
export function processStore(
  url: string,
  schema: string,
  max = 2,
  options: { readonly maxCopyBytes?: number } = {},
): { lists: PostgresLists; store: PostgresStore; sql: postgres.Sql } {
  const sql = postgres(url, { max, fetch_types: false, onnotice: () => {}, backoff: () => 0.05 });
  const lists = new PostgresLists((work) => work(sql), schema, {
    listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
    ...options,
  });
  return { lists, store: lists.list("default"), sql };
}

/**
 * Opens the lists in `schema` on `url` as server processes would, each on a pool of its own, ended
 * after the calling file's tests, and gives the default list; with `pollMs`, lists that are read
 * only when asked, as a Worker's are.
 */
export function listsOpener(url: string): (schema: string, pollMs?: number) => Promise<PostgresLists> {
  const pools: postgres.Sql[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((sql) => sql.end()));
  });
  return async (schema, pollMs) => {
    const { lists: listening, sql } = processStore(url, schema);
    pools.push(sql);
    const watch: PostgresWatch = { pollMs: pollMs ?? 0 };
    const lists = pollMs === undefined ? listening : new PostgresLists((work) => work(sql), schema, watch);
    await lists.open();
    return lists;
  };
}

/** As {@link listsOpener}, giving each schema's default list. */
export function storeOpener(url: string): (schema: string, pollMs?: number) => Promise<PostgresStore> {
  const open = listsOpener(url);
  return async (schema, pollMs) => (await open(schema, pollMs)).list("default");
}
