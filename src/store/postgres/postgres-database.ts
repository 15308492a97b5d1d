// A PostgreSQL schema as the lists' stores use it: a client per operation, the schema's
// migrations applied once, an operation run again when that is safe, and the database's failures
// told apart from the statements'.
import type { Sql } from "postgres";
import { newInstance } from "../../engine/new-history.ts";
import { ConfigError, StoreUnavailableError } from "../../errors.ts";
import { type Statements, statements } from "./list-sql.ts";
import { madeBeforeMigrations, migration, SCHEMA_VERSION } from "./migrations.ts";

/**
 * Runs `work` with a client: on Node, Bun and Deno the process's pool, on Workers the client of the
 * request it runs for, shared by that request's operations (Workers cannot use a connection across
 * requests).
 */
export type WithClient = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

/** What an operation does, for what may be run again: a read, a write, or a restore (which makes no list). */
export type OperationKind = "read" | "write" | "restore";

/** Statements run as named prepared statements: planned once per connection, not per request. */
export const PREPARED = { prepare: true } as const;

/** The schema of every list of a deployment, and how each operation on it is run. */
export class PostgresDatabase {
  readonly #use: WithClient;
  /** A safe SQL identifier (see `parsePostgresSchema`); it also names the channel every list's writes notify. */
  readonly schema: string;
  readonly sql: Statements;
  /** Whether the schema was found at this version: a Worker finds out on its first request. */
  #migrated = false;

  constructor(use: WithClient, schema: string) {
    this.#use = use;
    this.schema = schema;
    this.sql = statements(schema);
  }

  /**
   * Runs one operation with a client, the schema's migrations first when they have not been seen
   * applied (but for a restore, which must not make a list). A schema dropped meanwhile is made
   * again and the operation run again: its statement failed before it ran. A read refused with a
   * terminated connection's notice is run again too: postgres.js hands the notice of a connection
   * cut mid-query to the first query on its replacement, before sending it, but nothing outside the
   * driver tells that query from one the cut connection had sent and may have committed. So a
   * write is never run again: it answers 503, and a client retries it with its Idempotency-Key. A
   * database that cannot be reached becomes a {@link StoreUnavailableError}.
   */
  async run<T>(kind: OperationKind, operation: (sql: Sql) => Promise<T>): Promise<T> {
    const migrate = kind !== "restore";
    try {
      return await this.#use(async (sql) => {
        const attempt = async () => {
          if (migrate && !this.#migrated) await this.migrate(sql);
          return operation(sql);
        };
        try {
          return await attempt();
        } catch (error) {
          if (migrate && isMissingList(error)) this.#migrated = false;
          else if (!(kind === "read" && isStaleTermination(error))) throw error;
          return attempt();
        }
      });
    } catch (error) {
      if (isUnreachable(error))
        throw new StoreUnavailableError(`PostgreSQL cannot be reached: ${describeError(error)}`, { cause: error });
      throw error;
    }
  }

  /**
   * Applies, in order, the migrations the schema has not had; a schema that holds a list made
   * before numbered migrations is refused with a {@link ConfigError}. Run by `run` and by a restore.
   */
  async migrate(sql: Sql): Promise<void> {
    let version = 0;
    try {
      const [row] = await sql.unsafe(this.sql.version);
      version = Number(row?.version);
    } catch (error) {
      if (!isMissingList(error)) throw error;
      const [found] = await sql.unsafe(this.sql.listed);
      // Another process may have made the list since: then it made its version row in the same transaction.
      if (found?.listed === true && found.versioned !== true) throw new ConfigError(madeBeforeMigrations(this.schema));
    }
    for (let number = version + 1; number <= SCHEMA_VERSION; number++) {
      await sql.unsafe(migration(this.schema, number, newInstance()));
    }
    this.#migrated = true;
  }
}

/** SQLSTATE 42P01 (no such table) and 3F000 (no such schema): the lists have not been made in this schema. */
function isMissingList(error: unknown): boolean {
  return isPostgresError(error) && (error.code === "42P01" || error.code === "3F000");
}

function isStaleTermination(error: unknown): boolean {
  return isPostgresError(error) && error.code === "57P01";
}

function isPostgresError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === "PostgresError" && "code" in error && typeof error.code === "string";
}
/** Codes of failures to reach the server: the driver's own, and the sockets' of Node, Bun and Deno. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether a failure means the database cannot be reached now, rather than that a statement is
 * wrong: a connection refused, cut or timed out; the server shutting down, starting up, out of
 * connections or read-only after a failover; a login refused (a password rotated, a database
 * dropped). workerd's sockets throw plain errors without a code, known by their message.
 */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = "code" in error && typeof error.code === "string" ? error.code : "";
  if (error.name === "PostgresError") return /^(08|28|57P0[1235]$|53300$|3D000$|25006$)/.test(code);
  if (CONNECTION_CODES.has(code)) return true;
  return /connection attempt failed|network connection lost|connection (was )?(closed|reset)|stream was cancelled|proxy request failed/i.test(
    error.message,
  );
}

/** An error's code and message, for a log line. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = "code" in error && typeof error.code === "string" ? `${error.code} ` : "";
  return `${code}${error.message}`;
}
