// PostgreSQL for a Worker, through Hyperdrive: one client per request, and readers who ask again on
// their own timers, since Hyperdrive carries no LISTEN.
import postgres, { type Sql } from "postgres";
import type { RequestWork } from "../../engine/request-work.ts";
import type { WithClient } from "./postgres-database.ts";
import { PostgresLists } from "./postgres-lists.ts";

/** The Hyperdrive binding, as far as the store uses it. */
export interface HyperdriveBinding {
  readonly connectionString: string;
}

/** What the store asks of the Worker: the request running now, and a way to finish work after the response. */
export interface HyperdriveHost {
  readonly request: () => RequestWork | undefined;
  readonly waitUntil: (promise: Promise<unknown>) => void;
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
 * The lists in `schema`, reached through a Hyperdrive binding. A Worker cannot use a connection
 * in a request other than the one that opened it, so each request gets a client of its own on its
 * first operation, which its other operations share, and which is closed once its response is
 * made and its operations are done (see {@link RequestClient}). The isolate keeps its copies of
 * the lists it reads across requests, within its bound, so an unchanged list costs one small query.
 * Under wrangler dev there is no pool: each client is a new database connection, most of a
 * request's time (docs/postgresql.md).
 */
export function hyperdriveStore(binding: HyperdriveBinding, schema: string, host: HyperdriveHost): PostgresLists {
  const connect = () =>
    // One connection: an operation's queries follow one another. No array types to look up.
    postgres(binding.connectionString, {
      max: 1,
      fetch_types: false,
      // As the servers' pool: a database busy opening many connections at once can take seconds.
      connect_timeout: 10,
      onnotice: () => {},
    });
  const clients = new WeakMap<RequestWork, RequestClient>();
  const use: WithClient = (work) => {
    const request = host.request();
    // Workers allow no I/O outside a request; should an operation run there, it gets a client of its own.
    if (request === undefined) return new RequestClient(connect, host.waitUntil).use(work);
    let client = clients.get(request);
    if (client === undefined) {
      client = new RequestClient(connect, host.waitUntil, request);
      clients.set(request, client);
    }
    return client.use(work);
  };
  return new PostgresLists(use, schema, { pollMs: POLL_MS, maxCopyBytes: ISOLATE_COPY_BYTES });
}

/**
 * The client of one request, made on its first operation and shared by the operations that run
 * while it is open. It is closed, after the response with `waitUntil`, once the response is made
 * and no operation uses it; an operation after that, such as an event stream asking again,
 * opens one more for itself and whatever runs beside it, closed the same way when they are done.
 */
class RequestClient {
  readonly #connect: () => Sql;
  readonly #waitUntil: (promise: Promise<unknown>) => void;
  #sql: Sql | undefined;
  #using = 0;
  /** Whether the response is made: without a request, at once. */
  #responded: boolean;

  constructor(connect: () => Sql, waitUntil: (promise: Promise<unknown>) => void, request?: RequestWork) {
    this.#connect = connect;
    this.#waitUntil = waitUntil;
    this.#responded = request === undefined;
    request?.afterResponse(() => {
      this.#responded = true;
      this.#release();
    });
  }

  async use<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    this.#sql ??= this.#connect();
    const sql = this.#sql;
    this.#using++;
    try {
      return await work(sql);
    } finally {
      this.#using--;
      this.#release();
    }
  }

  #release(): void {
    const sql = this.#sql;
    if (sql === undefined || this.#using > 0 || !this.#responded) return;
    this.#sql = undefined;
    this.#waitUntil(sql.end({ timeout: 5 }));
  }
}
