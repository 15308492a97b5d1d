// A PostgreSQL store as one server process makes it: a pool of its own on the list in a schema,
// told of other processes' changes by LISTEN, for the tests of the store itself.
import postgres from "postgres";
import { PostgresStore } from "../../src/store/postgres/postgres-store.ts";

/** A store on the list in `schema` of the database at `url`, not yet opened, and the pool to end after. */
export function processStore(url: string, schema: string, max = 2): { store: PostgresStore; sql: postgres.Sql } {
  const sql = postgres(url, { max, fetch_types: false, onnotice: () => {}, backoff: () => 0.05 });
  const store = new PostgresStore((work) => work(sql), schema, {
    listen: (channel, onNotify, onListen) => sql.listen(channel, onNotify, onListen),
  });
  return { store, sql };
}
