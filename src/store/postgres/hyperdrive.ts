// PostgreSQL for a Worker, through Hyperdrive: a client per request, and readers who ask again on
// their own timers, since Hyperdrive carries no LISTEN.
import postgres from "postgres";
import { PostgresLists } from "./postgres-lists.ts";

/** The Hyperdrive binding, as far as the store uses it. */
export interface HyperdriveBinding {
  readonly connectionString: string;
}

/**
 * How often a reader waiting for a change asks the database again: the contract's 2 s for a task
 * to reach a Worker's subscribers, less the query's own time.
 */
const POLL_MS = 1_000;
/**
 * Bytes of lists' copies an isolate keeps: a quarter of its 128 MB, so that a list read while the
 * copies are full, and the requests in flight, fit beside them.
 */
const ISOLATE_COPY_BYTES = 32 * 1024 * 1024;

/**
 * The lists in `schema`, reached through a Hyperdrive binding. A Worker cannot reuse a connection
 * across requests, so each operation gets a client of its own, which Hyperdrive's pool makes
 * cheap, and closes it after the response, keeping the request open for that with `waitUntil`. The
 * isolate keeps its copies of the lists it reads across requests, within its bound, so an
 * unchanged list costs one small query.
 * Under wrangler dev there is no pool: each client is a new database connection, most of a
 * request's time (docs/postgresql.md).
 */
export function hyperdriveStore(
  binding: HyperdriveBinding,
  schema: string,
  waitUntil: (promise: Promise<unknown>) => void,
): PostgresLists {
  return new PostgresLists(
    async (work) => {
      // One connection: an operation's queries follow one another. No array types to look up.
      const sql = postgres(binding.connectionString, {
        max: 1,
        fetch_types: false,
        // As the servers' pool: a database busy opening many connections at once can take seconds.
        connect_timeout: 10,
        onnotice: () => {},
      });
      try {
        return await work(sql);
      } finally {
        waitUntil(sql.end({ timeout: 5 }));
      }
    },
    schema,
    { pollMs: POLL_MS, maxCopyBytes: ISOLATE_COPY_BYTES },
  );
}
