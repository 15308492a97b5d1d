// The list in a PostgreSQL schema, shared by every process and isolate that uses the schema: its
// SQL, its copy in this process, and how a reader hears of tasks other processes add.
import type { Sql } from "postgres";
import type { ListLimits } from "../../config.ts";
import { ConfigError, StoreUnavailableError } from "../../errors.ts";
import { encodeTask, type ListVersion } from "../../list/encoded-list.ts";
import type { Limit, ListUsage } from "../../list/limits.ts";
import { type NewTask, type Task, taskJson } from "../../list/task.ts";
import { ChangeSignal } from "../change-signal.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges, ListMirror } from "../mirror.ts";
import { newInstance } from "../new-history.ts";
import type * as seam from "../store.ts";
import { changesOf, type Statements, statements } from "./list-sql.ts";
import { madeBeforeMigrations, migration, SCHEMA_VERSION } from "./migrations.ts";

/**
 * Runs `work` with a client: on Node, Bun and Deno the process's pool, on Workers a client made
 * for this one request (Workers cannot reuse a connection across requests).
 */
export type WithClient = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

/**
 * Listens on a channel for the whole process: calls `onNotify` for each notification and
 * `onListen` each time the listening connection is (re)made, when notifications may have been
 * missed. postgres.js's `sql.listen` is one.
 */
export type Listen = (channel: string, onNotify: () => void, onListen: () => void) => Promise<unknown>;

/** How a reader hears that other processes added tasks. */
export type Watch =
  /** Node, Bun and Deno: LISTEN on the list's channel, one connection per process. */
  | { readonly listen: Listen }
  /** Workers, where Hyperdrive carries no LISTEN: each reader asks the database again every `pollMs`. */
  | { readonly pollMs: number };

/** Tasks one catch-up query hands over at most, beside its {@link CHANGES_CHUNK_BYTES}: it bounds each query's scan. */
const CHUNK_TASKS = 100_000;
/** Statements run as named prepared statements: planned once per connection, not per request. */
const PREPARED = { prepare: true } as const;
/**
 * The list in a PostgreSQL schema, shared by every process and isolate that uses the schema.
 *
 * Each process keeps a {@link ListMirror} of the list and, per read, asks only for the tasks after
 * its last change with the list's instance and count, in one query: a current copy costs one small
 * query and responds 304. Each write is one call of its function (append-sql.ts, edit-sql.ts),
 * which locks the list's row until it commits, so ids are contiguous, commits happen in change
 * order, and a reader asking for the changes after its last never skips one that commits late.
 */
export class PostgresStore implements seam.TaskStore {
  readonly #use: WithClient;
  readonly #schema: string;
  readonly #sql: Statements;
  readonly #mirror: ListMirror;
  readonly #watch: Watch;
  readonly #changes: ChangeSignal | undefined;
  #usage: ListUsage = { tasks: 0, bytes: 2 };
  /** Whether this store found the schema at its version: a Worker's store finds out on its first request. */
  #migrated = false;

  /** `schema` must be a safe SQL identifier (see `parsePostgresSchema`); it also names the list's channel. */
  constructor(use: WithClient, schema: string, watch: Watch) {
    this.#use = use;
    this.#schema = schema;
    this.#sql = statements(schema);
    this.#watch = watch;
    // A process that listens serves many readers from one copy, so their reads share questions.
    this.#mirror = new ListMirror({ shared: "listen" in watch });
    this.#changes = "listen" in watch ? new ChangeSignal(() => this.#mirror.current.changedBytes) : undefined;
  }

  /**
   * Applies the migrations the schema lacks (making the list with its initial tasks in a new one),
   * loads the list and, on a server, starts listening for other processes' writes. Servers call it
   * at start, so that a database they cannot use stops them.
   */
  async open(): Promise<void> {
    await this.read();
    if ("listen" in this.#watch) {
      // A notification says only that the list changed; the copy asks for what, once for every reader.
      const caughtUp = () => {
        this.read().then(
          () => this.#changes?.notify(),
          () => this.#changes?.notify(),
        );
      };
      await this.#watch.listen(this.#schema, caughtUp, caughtUp);
    }
  }

  read(): Promise<ListVersion> {
    return this.#run("read", (sql) => this.#mirror.read((instance, after) => this.#changesSince(sql, instance, after)));
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    if (this.#changes !== undefined && bytesPast !== undefined) return this.#changes.waitPast(bytesPast, signal);
    if (this.#changes !== undefined) return this.#changes.wait(() => this.#mirror.current.change > change, signal);
    const { pollMs } = this.#watch as { pollMs: number };
    // Each reader asks again on its own timer: on Workers one request may not wake another.
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", finish);
        done();
      };
      const timer = setTimeout(finish, pollMs);
      signal.addEventListener("abort", finish, { once: true });
    });
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult> {
    const titleJson = JSON.stringify(task.title);
    // The task's JSON as the list shows it, but for its id, whose digits only the database knows.
    const rest = encodeTask({ id: 0, ...task }).byteLength - 1;
    const limitsAndTask = [rest, limits.maxTasks, limits.maxBytes, titleJson, task.completed, this.#schema];
    return this.#run("write", async (sql) => {
      const keyed = key && [...limitsAndTask, key.scope, key.key, key.fingerprint, limits.maxKeys];
      const row = this.#first(
        keyed === undefined
          ? await sql.unsafe(this.#sql.append, limitsAndTask, PREPARED)
          : await sql.unsafe(this.#sql.appendKeyed, keyed, PREPARED),
      );
      const outcome = String(row.outcome) as seam.AppendResult["outcome"];
      if (outcome === "key-reused") return { outcome, usage: this.#usage };
      if (outcome === "full") return { outcome, limit: String(row.full_limit) as Limit, usage: this.#usage };
      if (outcome === "replayed") {
        const json = String(row.task_json);
        return { outcome, task: JSON.parse(json) as Task, json, usage: this.#usage };
      }
      const created = { id: Number(row.id), ...task };
      return { outcome: "added", task: created, json: taskJson(created), usage: this.#usage };
    });
  }

  update(id: number, patch: seam.TaskPatch, limits: ListLimits, ifMatch?: seam.IfMatch): Promise<seam.UpdateResult> {
    const titleJson = patch.title === undefined ? null : JSON.stringify(patch.title);
    const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
    const parameters = [id, titleJson, patch.completed ?? null, versions, limits.maxBytes, this.#schema];
    return this.#run("write", async (sql) => {
      const row = this.#first(await sql.unsafe(this.#sql.update, parameters, PREPARED));
      const outcome = String(row.outcome) as seam.UpdateResult["outcome"];
      if (outcome === "updated" || outcome === "unchanged") {
        const json = String(row.task_json);
        return { outcome, task: JSON.parse(json) as Task, json, version: String(row.version), usage: this.#usage };
      }
      if (outcome === "full") return { outcome, limit: "bytes", usage: this.#usage };
      return { outcome, usage: this.#usage };
    });
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult> {
    return this.#run("write", async (sql) => {
      const versions = ifMatch === undefined ? null : JSON.stringify(ifMatch);
      const parameters = [id, versions, this.#schema];
      const row = this.#first(await sql.unsafe(this.#sql.remove, parameters, PREPARED));
      return { outcome: String(row.outcome) as seam.RemoveResult["outcome"], usage: this.#usage };
    });
  }

  /**
   * Starts the list on a new history after a restore from a dump (restore-sql.ts), and returns what
   * to tell the operator. A schema without a list is refused, and no list is made in it.
   */
  restored(): Promise<string> {
    return this.#run("restore", async (sql) => {
      const [found] = await sql.unsafe(this.#sql.listed);
      if (found?.listed !== true) {
        throw new Error(`DATABASE_SCHEMA ${this.#schema} holds no task list: restore the dump of its tables first`);
      }
      await this.#migrate(sql);
      const [row] = await sql.unsafe(this.#sql.restored);
      return String(row?.said);
    });
  }

  /** The row a write's function returns, or the catch-up's first: keeps the list's count and bytes it gives. */
  #first(rows: readonly Record<string, unknown>[]): Record<string, unknown> {
    const [row] = rows;
    if (row === undefined) throw new Error(`DATABASE_SCHEMA ${this.#schema} has lost its list's row`);
    this.#usage = { tasks: Number(row.task_count), bytes: Number(row.json_bytes) };
    return row;
  }

  /** What changed after change `after` of list `instance` (see `ChangesSince`). */
  async #changesSince(sql: Sql, instance: string | undefined, after: number): Promise<ListChanges> {
    const parameters = [instance ?? "", after, CHANGES_CHUNK_BYTES, CHUNK_TASKS];
    const rows = await sql.unsafe(this.#sql.changes, parameters, PREPARED);
    this.#first(rows);
    return changesOf(rows);
  }

  /**
   * Applies, in order, the migrations the schema has not had; a schema that holds a list made
   * before numbered migrations is refused with a {@link ConfigError}.
   */
  async #migrate(sql: Sql): Promise<void> {
    let version = 0;
    try {
      const [row] = await sql.unsafe(this.#sql.version);
      version = Number(row?.version);
    } catch (error) {
      if (!isMissingList(error)) throw error;
      const [found] = await sql.unsafe(this.#sql.listed);
      // Another process may have made the list since: then it made its version row in the same transaction.
      if (found?.listed === true && found.versioned !== true) throw new ConfigError(madeBeforeMigrations(this.#schema));
    }
    for (let number = version + 1; number <= SCHEMA_VERSION; number++) {
      await sql.unsafe(migration(this.#schema, number, newInstance()));
    }
    this.#migrated = true;
  }

  /**
   * Runs one operation with a client, the schema's migrations first when this store has not seen
   * them applied (but for a restore, which must not make a list). A list whose schema was dropped
   * meanwhile is made again and the operation run again: its statement failed before it ran. A
   * read refused with a terminated connection's notice is run again too: postgres.js hands the
   * notice of a connection cut mid-query to the first query on its replacement, before sending it,
   * but nothing outside the driver tells that query from one the cut connection had sent and may
   * have committed. So a write is never run again: it answers 503, and a client retries it with its
   * Idempotency-Key. A database that cannot be reached becomes a {@link StoreUnavailableError}.
   */
  async #run<T>(kind: "read" | "write" | "restore", operation: (sql: Sql) => Promise<T>): Promise<T> {
    const migrate = kind !== "restore";
    let result: T;
    try {
      result = await this.#use(async (sql) => {
        const attempt = async () => {
          if (migrate && !this.#migrated) await this.#migrate(sql);
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
    return result;
  }
}

/** SQLSTATE 42P01 (no such table) and 3F000 (no such schema): the list has not been made in this schema. */
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
