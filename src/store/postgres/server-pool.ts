// PostgreSQL for a Node, Bun or Deno server: one pool per process, and one connection that
// listens for every other process's writes to every list.
import postgres from "postgres";
import { ConfigError, StoreUnavailableError } from "../../errors.ts";
import { describeError } from "./postgres-database.ts";
import { PostgresLists } from "./postgres-lists.ts";
import { hideDatabasePassword, type PostgresServerConfig, redactDatabaseUrl } from "./settings.ts";

/**
 * Seconds a connection attempt may take. A database that does not reply by then fails a request
 * with 503 in that time, and stops a server at start in that time.
 */
const CONNECT_TIMEOUT_SECONDS = 10;

/**
 * postgres.js waits up to 20 s between failed connection attempts, so after an outage requests
 * would keep failing for seconds with the database back. A quarter of a second at most instead:
 * attempts are cheap, and the service is back as soon as the database is.
 */
function backoffSeconds(attempt: number): number {
  return Math.min(0.05 * attempt, 0.25);
}

/**
 * Connects to the database at `config.url` with a pool of `config.poolSize` connections, makes the
 * lists in `config.schema` if they are not there yet (or applies the migrations they lack), loads the
 * default list and listens on the schema's channel. A database this process cannot reach or use, or a schema it does not
 * read, stops the start with a {@link ConfigError} naming the variable and the cause, with the
 * URL's password hidden.
 */
export async function openPostgresStore(config: PostgresServerConfig): Promise<PostgresLists> {
  const sql = postgres(config.url, {
    max: config.poolSize,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    backoff: backoffSeconds,
    // The list needs no array types, and looking them up costs a round trip per connection.
    fetch_types: false,
    // postgres.js prints notices (a table that already exists) on standard output by default.
    onnotice: () => {},
    connection: { application_name: "task-list-service" },
  });
  // postgres.js keeps the listening connection apart from the pool, and makes it again, with
  // onlisten, whenever it is lost.
  const listen = (channel: string, onNotify: (payload: string) => void, onListen: () => void) =>
    sql.listen(channel, onNotify, onListen);
  const store = new PostgresLists((work) => work(sql), config.schema, { listen });
  try {
    await store.open();
    return store;
  } catch (error) {
    await sql.end({ timeout: 0 }).catch(() => {});
    if (error instanceof ConfigError) throw error;
    // No `cause`: a runtime printing the error would print its fields, and a driver's may hold the URL.
    const unreachable = error instanceof StoreUnavailableError;
    const url = JSON.stringify(redactDatabaseUrl(config.url));
    const reason = hideDatabasePassword(describeError(unreachable ? error.cause : error), config.url);
    throw new ConfigError(
      unreachable
        ? `DATABASE_URL must name a PostgreSQL database this process can reach and log in to, got ${url}: ${reason}`
        : `DATABASE_SCHEMA must name a schema of the database at DATABASE_URL that holds a task list or that this process may create one in, got ${JSON.stringify(config.schema)} in ${url}: ${reason}`,
    );
  }
}
